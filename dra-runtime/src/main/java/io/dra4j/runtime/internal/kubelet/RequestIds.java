package io.dra4j.runtime.internal.kubelet;

import java.util.concurrent.atomic.AtomicLong;

/** Process-wide request ids: every call on every server of this JVM gets the next number. */
final class RequestIds {
  private static final AtomicLong NEXT = new AtomicLong();

  private RequestIds() {}

  static long next() {
    return NEXT.incrementAndGet();
  }
}
