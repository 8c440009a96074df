package io.dra4j.runtime.internal.kubelet;

import java.util.function.Consumer;

/**
 * Feeds the kubelet's health streams. Each open stream subscribes once and unsubscribes when the
 * kubelet goes away or the server closes.
 *
 * <p>Contract for implementations (the runtime's health hub):
 *
 * <ul>
 *   <li>deliver each report of the provider as it comes, naming exactly the devices it named;
 *   <li>never repeat a report on the provider's behalf: the kubelet must see a device go unknown
 *       when the provider stops reporting it (as the Go helper, {@code
 *       k8s.io/dynamic-resource-allocation@v0.37.2/kubeletplugin/health.go:131-136});
 *   <li>call the listener from any thread; it does not block (the server merges unsent messages per
 *       stream, so a slow kubelet never makes them queue up).
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
