package io.dra4j.benchmarks.fleet;

import io.dra4j.api.device.Device;
import io.dra4j.api.device.DeviceTaint;
import io.dra4j.kube.Informer;
import io.dra4j.kube.InformerHandler;
import io.dra4j.kube.KubeClient;
import io.dra4j.kube.ListOptions;
import io.dra4j.kube.ResourceSlice;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Predicate;

/**
 * The fleet's ResourceSlices as the API server holds them, through one informer of the harness's
 * own (the scheduler sees the same events): devices and tainted devices per node, and the time of
 * the event after which a condition first held, so convergence is timed by the server's truth and
 * not by what a driver believes it wrote.
 */
final class SliceMirror implements AutoCloseable {
  private final Informer<ResourceSlice> informer;
  private final Map<String, ResourceSlice> slices = new HashMap<>(); // guarded by this
  private long lastEvent; // guarded by this

  /** One node's slices: its device names and the devices that carry a taint. */
  record NodeView(Set<String> devices, Set<String> tainted) {}

  SliceMirror(KubeClient admin, String driver) {
    this.informer =
        Informer.builder(admin, ResourceSlice.TYPE)
            .options(ListOptions.fields("spec.driver=" + driver))
            // Back within a second of the API server's return, so the harness's own view is
            // never what delays a node's convergence after an outage.
            .backoff(Duration.ofMillis(100), Duration.ofSeconds(1))
            .handler(
                new InformerHandler<>() {
                  @Override
                  public void onAdd(ResourceSlice s) {
                    put(s);
                  }

                  @Override
                  public void onUpdate(ResourceSlice old, ResourceSlice s) {
                    put(s);
                  }

                  @Override
                  public void onDelete(ResourceSlice s) {
                    remove(s);
                  }
                })
            .build();
  }

  SliceMirror start(Duration timeout) throws InterruptedException {
    informer.start();
    if (!informer.awaitSynced(timeout)) {
      throw new IllegalStateException("the harness's ResourceSlice informer did not sync");
    }
    return this;
  }

  private synchronized void put(ResourceSlice s) {
    slices.put(s.metadata().name(), s);
    lastEvent = System.nanoTime();
    notifyAll();
  }

  private synchronized void remove(ResourceSlice s) {
    slices.remove(s.metadata().name());
    lastEvent = System.nanoTime();
    notifyAll();
  }

  /** Every node's view, by node name. */
  synchronized Map<String, NodeView> nodes() {
    Map<String, NodeView> out = new HashMap<>();
    for (ResourceSlice s : slices.values()) {
      String node = s.spec().nodeName().orElse("");
      NodeView v = out.computeIfAbsent(node, n -> new NodeView(new TreeSet<>(), new TreeSet<>()));
      for (Device d : s.spec().devices()) {
        v.devices().add(d.name());
        for (DeviceTaint t : d.taints()) {
          if (!t.key().isEmpty()) {
            v.tainted().add(d.name());
          }
        }
      }
    }
    return out;
  }

  synchronized int sliceCount() {
    return slices.size();
  }

  /**
   * Waits until {@code condition} holds for the nodes' views and returns the time of the event
   * after which it held (or now, if it held already).
   *
   * @throws IllegalStateException when it does not hold within {@code timeout}
   */
  long await(String what, Predicate<Map<String, NodeView>> condition, Duration timeout)
      throws InterruptedException {
    long deadline = System.nanoTime() + timeout.toNanos();
    synchronized (this) {
      while (true) {
        if (condition.test(nodes())) {
          return lastEvent == 0 ? System.nanoTime() : lastEvent;
        }
        long left = deadline - System.nanoTime();
        if (left <= 0) {
          throw new IllegalStateException("timed out after " + timeout + " waiting for " + what);
        }
        wait(Math.max(1, Math.min(left / 1_000_000, 500)));
      }
    }
  }

  /** The time of the last event seen; the condition checks use it as "when it became true". */
  synchronized long lastEvent() {
    return lastEvent;
  }

  @Override
  public void close() {
    informer.close();
  }
}
