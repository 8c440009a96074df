package io.dra4j.runtime;

import io.dra4j.api.binding.DeviceBinding;
import io.dra4j.api.device.Device;
import io.dra4j.api.provider.DeviceEnricher;
import io.dra4j.api.provider.Inventory;
import io.dra4j.api.provider.Pool;
import io.dra4j.api.provider.ProviderContext;
import io.dra4j.kube.internal.Backoff;
import io.dra4j.runtime.errors.DriverError;
import io.dra4j.runtime.errors.DriverErrorHandler;
import io.dra4j.runtime.extendedresource.ExtendedResourceGuard;
import io.dra4j.runtime.internal.Threads;
import io.dra4j.runtime.internal.claims.BindingController;
import io.dra4j.runtime.internal.health.HealthHub;
import io.dra4j.runtime.internal.slices.SlicePublisher;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.BooleanSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A driver's inventory, on one thread of its own: the provider's discovery (again after a failure,
 * with backoff), the enrichers, the health hub's taints and the guard's filter, then the slice
 * publisher; and the binding controller, once a published device has binding conditions. One
 * thread, so that two discoveries or two publishes never overlap and each sees the last one's
 * result.
 */
final class InventoryLoop implements AutoCloseable {
  // The driver's logger: these lines were always the driver's.
  private static final Logger LOG = LoggerFactory.getLogger(DraDriver.class);

  /**
   * After a failed discovery: 1 s doubling to 60 s, without jitter (a discovery fails on this node
   * alone, there is no shared server whose clients would retry in lockstep).
   */
  private static final Backoff.Policy DISCOVERY_BACKOFF =
      new Backoff.Policy(Duration.ofSeconds(1), Duration.ofSeconds(60), 0, Duration.ZERO);

  private final DraDriver.Settings settings;
  private final ProviderContext context;
  private final Optional<HealthHub> health;
  private final ExtendedResourceGuard guard;
  private final SlicePublisher publisher;
  private final DriverErrorHandler errors;
  private final ScheduledExecutorService thread;
  private final AtomicBoolean publishQueued = new AtomicBoolean();
  private final Backoff discoveryBackoff = new Backoff(DISCOVERY_BACKOFF);
  private final BooleanSupplier closed;

  // Written on the inventory thread only; read from any thread for status.
  private volatile Optional<List<Pool>> discovered = Optional.empty();
  private volatile List<Pool> published = List.of();
  private volatile boolean guardSynced;
  private volatile BindingController binding;

  /**
   * @param errors the driver's one outlet for errors no caller receives
   * @param closed whether the driver is closing: from then on nothing is discovered or published
   */
  InventoryLoop(
      DraDriver.Settings settings,
      ProviderContext context,
      Optional<HealthHub> health,
      ExtendedResourceGuard guard,
      SlicePublisher publisher,
      DriverErrorHandler errors,
      BooleanSupplier closed) {
    this.settings = settings;
    this.context = context;
    this.health = health;
    this.guard = guard;
    this.publisher = publisher;
    this.errors = errors;
    this.closed = closed;
    this.thread = Threads.single("dra4j-inventory");
  }

  /** Discovers on the inventory thread and waits for it. */
  void discover() throws IOException, InterruptedException {
    try {
      thread.submit(this::discoverNow).get();
    } catch (ExecutionException e) {
      throw new IOException("discovery failed: " + e.getCause(), e.getCause());
    }
  }

  /** Publishes for the first time once the guard allows it, on the inventory thread. */
  void publishOnceGuardSynced() {
    thread.execute(this::awaitGuardThenPublish);
  }

  /**
   * The guard must know the DeviceClasses and the Node before anything is published under its
   * {@code wait} and {@code fail} policies (under {@code fail}, a conflict stops the driver before
   * it published the devices in conflict); {@code warn} publishes at once.
   */
  private void awaitGuardThenPublish() {
    try {
      if (settings.extendedResourcePolicy() != ExtendedResourceGuard.Policy.WARN) {
        while (!closed.getAsBoolean() && !guard.awaitSynced(Duration.ofSeconds(10))) {
          LOG.warn(
              "not publishing yet: waiting to read the DeviceClasses and node {} (policy {})",
              settings.nodeName(),
              settings.extendedResourcePolicy().name().toLowerCase(Locale.ROOT));
        }
      }
      guardSynced = true;
      publishNow();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /** The provider said its devices changed: discover again, then republish. */
  void changed() {
    if (closed.getAsBoolean()) {
      return;
    }
    runOnInventoryThread(
        () -> {
          discoverNow();
          publishNow();
        });
  }

  /** Queues work for the inventory thread; after close there is nothing left to do. */
  private void runOnInventoryThread(Runnable task) {
    try {
      thread.execute(task);
    } catch (RejectedExecutionException e) {
      LOG.debug("driver {} closed: {} dropped", settings.driverName(), task);
    }
  }

  /** Runs on the inventory thread. */
  private void discoverNow() {
    Inventory inventory;
    try {
      inventory = settings.provider().discover(context);
      discoveryBackoff.reset();
    } catch (Exception e) {
      // Keep what was published before: a transient failure (a GPU driver still loading) must
      // never publish an empty inventory over the node's slices.
      long delay = discoveryBackoff.next().toSeconds();
      errors.handle(
          DriverError.recoverable(
              DriverError.Source.DISCOVERY,
              "discovery by provider "
                  + settings.provider().name()
                  + " failed (retrying in "
                  + delay
                  + " s): "
                  + e,
              e));
      if (!closed.getAsBoolean()) {
        thread.schedule(this::changed, delay, TimeUnit.SECONDS);
      }
      return;
    }
    List<Pool> pools = new ArrayList<>();
    for (Pool pool : inventory.pools()) {
      List<Device> devices = new ArrayList<>(pool.devices().size());
      for (Device d : pool.devices()) {
        devices.add(enrich(pool.name(), d));
      }
      pools.add(pool.withDevices(devices));
    }
    List<Pool> result = List.copyOf(pools);
    discovered = Optional.of(result);
    health.ifPresent(h -> h.setDevices(result));
    LOG.info(
        "discovered {} devices in {} pools",
        pools.stream().mapToInt(p -> p.devices().size()).sum(),
        pools.size());
  }

  private Device enrich(String pool, Device device) {
    Device d = device;
    for (DeviceEnricher e : settings.enrichers()) {
      try {
        d = e.enrich(pool, d);
      } catch (RuntimeException ex) {
        // One device's enrichment failure never costs the others their attributes.
        errors.handle(
            DriverError.recoverable(
                DriverError.Source.DISCOVERY,
                "enricher "
                    + e.getClass().getSimpleName()
                    + " failed on device "
                    + pool
                    + "/"
                    + device.name()
                    + ": "
                    + ex,
                ex));
      }
    }
    return d;
  }

  /** Republishes (the health taints or the guard changed); requests queued meanwhile are one. */
  void requestPublish() {
    if (closed.getAsBoolean() || !publishQueued.compareAndSet(false, true)) {
      return;
    }
    runOnInventoryThread(
        () -> {
          publishQueued.set(false);
          publishNow();
        });
  }

  /** Runs on the inventory thread. */
  private void publishNow() {
    // Nothing is published before the first successful discovery (an empty list would delete
    // the node's slices) or before the guard knows what it guards.
    if (closed.getAsBoolean() || !guardSynced || discovered.isEmpty()) {
      return;
    }
    List<Pool> pools = discovered.get();
    guard.setDevices(pools);
    if (health.isPresent()) {
      pools = health.get().applyTaints(pools);
    }
    pools = guard.filter(pools);
    published = pools;
    publisher.publish(pools);
    startBindingIfNeeded(pools);
  }

  /**
   * Binding conditions need a watch on every claim of the cluster: started only once this driver
   * publishes a device with binding conditions and its provider reports them. Runs on the inventory
   * thread.
   */
  private void startBindingIfNeeded(List<Pool> pools) {
    if (binding != null || !(settings.provider() instanceof DeviceBinding provider)) {
      return;
    }
    boolean needed =
        pools.stream()
            .flatMap(p -> p.devices().stream())
            .anyMatch(d -> !d.bindingConditions().isEmpty());
    if (needed) {
      binding =
          BindingController.start(
              settings.driverName(), settings.nodeName(), settings.kubeClient(), provider);
    }
  }

  /** A discovered device, for the claim pipeline. */
  Optional<Device> lookup(String pool, String device) {
    for (Pool p : discovered.orElse(List.of())) {
      if (p.name().equals(pool)) {
        for (Device d : p.devices()) {
          if (d.name().equals(device)) {
            return Optional.of(d);
          }
        }
      }
    }
    return Optional.empty();
  }

  /** What was handed to the publisher last: discovered, enriched, tainted, filtered. */
  List<Pool> published() {
    return published;
  }

  /**
   * Waits until the latest inventory has been handed to the publisher and written.
   *
   * @return false on timeout
   */
  boolean awaitPublished(Duration timeout) throws InterruptedException {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (!guardSynced || discovered.isEmpty() || publishQueued.get()) {
      if (System.nanoTime() > deadline || closed.getAsBoolean()) {
        return false;
      }
      Thread.sleep(10);
    }
    // Let the inventory thread hand its latest state to the publisher first.
    CountDownLatch drained = new CountDownLatch(1);
    thread.execute(drained::countDown);
    if (!drained.await(Math.max(1, deadline - System.nanoTime()), TimeUnit.NANOSECONDS)) {
      return false;
    }
    return publisher.awaitIdle(Duration.ofNanos(Math.max(1, deadline - System.nanoTime())));
  }

  /** Stops the thread (waiting up to 10 s for the task it runs), then the binding controller. */
  @Override
  public void close() {
    thread.shutdownNow();
    try {
      if (!thread.awaitTermination(10, TimeUnit.SECONDS)) {
        LOG.warn("the inventory thread did not stop within 10 s");
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    DraDriver.closeQuietly(binding);
  }
}
