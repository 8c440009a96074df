package io.dra4j.runtime.internal.kubelet;

import java.util.function.Consumer;

/**
 * Feeds the kubelet's health streams. Each open stream subscribes once and unsubscribes when the
 * kubelet goes away or the server closes.
 *
 * <p>Contract for implementations (the runtime's health hub):
 *
 * <ul>
 *   <li>deliver the current snapshot soon after {@link #subscribe}, then a new one on every change;
 *   <li>resend the current snapshot regularly, well before the smallest {@code
 *       healthCheckTimeoutSeconds} (default 30 s): the kubelet marks devices unknown otherwise;
 *   <li>call the listener from any thread; it does not block (the server keeps only the newest
 *       unsent snapshot per stream, so a slow kubelet never makes it queue up).
 * </ul>
 */
public interface HealthSource {

  /** Starts delivering snapshots to {@code listener} until the subscription is closed. */
  Subscription subscribe(Consumer<HealthSnapshot> listener);

  /** An active subscription; closing it stops delivery. Idempotent. */
  @FunctionalInterface
  interface Subscription extends AutoCloseable {
    @Override
    void close();
  }
}
