package io.dra4j.testkit.apiserver;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * Fault injection for tests: added latency, error answers for the next N matching calls, dropped
 * watch streams. "API server down" is {@link FakeApiServer#stop()} / {@link
 * FakeApiServer#restart()}.
 *
 * <p>Verbs: {@code get, list, watch, create, update, patch, delete, deletecollection} or {@code *};
 * resources: a plural ({@code resourceslices}), a subresource ({@code resourceclaims/status}) or
 * {@code *}.
 */
public final class Faults {
  private final FakeApiServer server;
  private final List<Rule> rules = new ArrayList<>();
  private volatile Duration latency = Duration.ZERO;

  Faults(FakeApiServer server) {
    this.server = server;
  }

  private static final class Rule {
    final String verb;
    final String resource;
    final int status;
    final Optional<Integer> retryAfterSeconds;
    int remaining;

    Rule(String verb, String resource, int times, int status, Optional<Integer> retryAfter) {
      this.verb = verb;
      this.resource = resource;
      this.remaining = times;
      this.status = status;
      this.retryAfterSeconds = retryAfter;
    }
  }

  /** An injected failure: status and optional Retry-After seconds. */
  record Failure(int status, Optional<Integer> retryAfterSeconds) {}

  /** Every request waits this long before it is handled (0 to turn off). */
  public Faults latency(Duration value) {
    latency = Objects.requireNonNull(value, "latency");
    return this;
  }

  /** The next {@code times} calls matching verb and resource fail with {@code status}. */
  public Faults failNext(String verb, String resource, int times, int status) {
    synchronized (rules) {
      rules.add(new Rule(verb, resource, times, status, Optional.empty()));
    }
    return this;
  }

  /** Like {@link #failNext(String, String, int, int)}, with a Retry-After header (seconds). */
  public Faults failNext(
      String verb, String resource, int times, int status, int retryAfterSeconds) {
    synchronized (rules) {
      rules.add(new Rule(verb, resource, times, status, Optional.of(retryAfterSeconds)));
    }
    return this;
  }

  /** Ends every open watch stream now, cleanly (clients see the stream end and resume). */
  public void dropWatches() {
    server.store().watches().endWatches();
  }

  /** Removes latency and pending failures. */
  public void clear() {
    latency = Duration.ZERO;
    synchronized (rules) {
      rules.clear();
    }
  }

  Duration latency() {
    return latency;
  }

  Optional<Failure> take(String verb, String resource) {
    synchronized (rules) {
      for (Rule r : rules) {
        if (r.remaining > 0
            && (r.verb.equals("*") || r.verb.equals(verb))
            && (r.resource.equals("*") || r.resource.equals(resource))) {
          r.remaining--;
          return Optional.of(new Failure(r.status, r.retryAfterSeconds));
        }
      }
      return Optional.empty();
    }
  }
}
