package io.dra4j.testkit.faults;

/** What a {@link FaultProxy} does to a request instead of (or on top of) forwarding it. */
public enum Fault {
  /** 429 Too Many Requests with {@code Retry-After: 1}; not forwarded (priority and fairness). */
  THROTTLE,
  /** 500 Internal Server Error without Retry-After; not forwarded. */
  SERVER_ERROR,
  /** 503 Service Unavailable with {@code Retry-After: 1}; not forwarded (storage not ready). */
  UNAVAILABLE,
  /** 409 Conflict on a write (PUT, PATCH, DELETE); not forwarded (a concurrent writer won). */
  CONFLICT,
  /** Forwarded after a pause of one to three seconds. */
  SLOW,
  /** The connection is reset (TCP RST) before the request reaches the server. */
  RESET,
  /** The request is forwarded and processed, then the connection is reset: the answer is lost. */
  RESET_AFTER,
  /** A watch stream is cut (TCP RST) after a while, in the middle of the stream. */
  WATCH_DROP,
  /** The server goes away: connections cut, new ones refused, until the outage ends. */
  OUTAGE;
}
