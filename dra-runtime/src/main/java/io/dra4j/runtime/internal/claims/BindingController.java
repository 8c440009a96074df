package io.dra4j.runtime.internal.claims;

import io.dra4j.api.binding.BindingRequest;
import io.dra4j.api.binding.BindingStatus;
import io.dra4j.api.binding.DeviceBinding;
import io.dra4j.api.claim.ClaimRef;
import io.dra4j.api.device.NodeSelector;
import io.dra4j.api.status.Condition;
import io.dra4j.api.status.DeviceStatus;
import io.dra4j.kube.AllocatedDeviceStatus;
import io.dra4j.kube.AllocationResult;
import io.dra4j.kube.DeviceRequestAllocationResult;
import io.dra4j.kube.Informer;
import io.dra4j.kube.InformerHandler;
import io.dra4j.kube.KubeClient;
import io.dra4j.kube.KubeException;
import io.dra4j.kube.ResourceClaim;
import io.dra4j.runtime.internal.Threads;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Binding conditions (KEP-5007) for a provider that implements {@link DeviceBinding}: watches the
 * ResourceClaims, and for each allocation of this driver's devices that carries binding conditions
 * and is pinned to this node, asks the provider how attaching stands and writes the matching
 * conditions into {@code status.devices} until they are settled (every binding condition {@code
 * True}, or a failure condition {@code True}). When such an allocation goes away the provider hears
 * of it ({@link DeviceBinding#released}).
 *
 * <p>Writes are server-side applies on the status subresource under the field manager {@link
 * #fieldManager}, separate from the one that writes the prepare-time status, so neither removes the
 * other's conditions. Each apply carries every binding device of the claim (settled ones with the
 * conditions the API server holds), because an apply drops what its manager no longer sends;
 * nothing is sent when the status already says what the provider says.
 *
 * <p>One thread: informer events and polls run on it one after the other, so the provider is never
 * called concurrently.
 */
public final class BindingController implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(BindingController.class);

  static final String PENDING = "Pending";
  static final String READY = "Ready";
  static final String FAILED = "Failed";
  static final int MAX_MESSAGE = 1024;

  private final String driver;
  private final String node;
  private final KubeClient client;
  private final DeviceBinding provider;
  private final Clock clock;
  private final ScheduledExecutorService thread;
  private final Informer<ResourceClaim> informer;

  /** Claims with binding devices of ours, by UID. Touched on {@link #thread} only. */
  private final Map<String, Work> work = new HashMap<>();

  private static final class Work {
    ResourceClaim claim;
    List<BindingRequest> devices = List.of();
    ScheduledFuture<?> next;
  }

  private BindingController(
      String driver, String node, KubeClient client, DeviceBinding provider, Clock clock) {
    this.driver = driver;
    this.node = node;
    this.client = client;
    this.provider = provider;
    this.clock = clock;
    this.thread = Threads.single("dra4j-binding");
    this.informer =
        Informer.builder(client, ResourceClaim.TYPE)
            .handler(
                new InformerHandler<>() {
                  @Override
                  public void onAdd(ResourceClaim claim) {
                    thread.execute(() -> update(claim));
                  }

                  @Override
                  public void onUpdate(ResourceClaim oldClaim, ResourceClaim claim) {
                    thread.execute(() -> update(claim));
                  }

                  @Override
                  public void onDelete(ResourceClaim claim) {
                    thread.execute(() -> removed(claim.metadata().uid()));
                  }
                })
            .build();
  }

  /** Starts watching the claims of all namespaces. */
  public static BindingController start(
      String driver, String node, KubeClient client, DeviceBinding provider) {
    return start(driver, node, client, provider, Clock.systemUTC());
  }

  static BindingController start(
      String driver, String node, KubeClient client, DeviceBinding provider, Clock clock) {
    Objects.requireNonNull(driver, "driver");
    Objects.requireNonNull(node, "node");
    Objects.requireNonNull(client, "client");
    Objects.requireNonNull(provider, "provider");
    BindingController c = new BindingController(driver, node, client, provider, clock);
    c.informer.start();
    LOG.info("driver {} on node {}: reporting binding conditions of its devices", driver, node);
    return c;
  }

  /** The field manager of the binding conditions. */
  public static String fieldManager(String driver) {
    return driver + "/binding";
  }

  /** Waits until the first list of claims was seen; false on timeout. */
  public boolean awaitSynced(Duration timeout) throws InterruptedException {
    return informer.awaitSynced(timeout);
  }

  @Override
  public void close() {
    informer.close();
    thread.shutdownNow();
    try {
      thread.awaitTermination(5, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  // ---------------------------------------------------------------------------------------------

  private void update(ResourceClaim claim) {
    String uid = claim.metadata().uid();
    List<BindingRequest> wanted = requests(claim);
    Work w = work.get(uid);
    if (w != null) {
      for (BindingRequest gone : w.devices) {
        if (!wanted.contains(gone)) {
          release(gone);
        }
      }
    }
    if (wanted.isEmpty()) {
      if (w != null) {
        cancel(w);
        work.remove(uid);
      }
      return;
    }
    if (w == null) {
      w = new Work();
      work.put(uid, w);
    }
    w.claim = claim;
    w.devices = wanted;
    if (!wanted.stream().allMatch(d -> settled(claim, d)) && w.next == null) {
      w.next = thread.schedule(() -> poll(uid), 0, TimeUnit.MILLISECONDS);
    }
  }

  private void removed(String uid) {
    Work w = work.remove(uid);
    if (w != null) {
      cancel(w);
      w.devices.forEach(this::release);
    }
  }

  private static void cancel(Work w) {
    if (w.next != null) {
      w.next.cancel(false);
      w.next = null;
    }
  }

  private void release(BindingRequest r) {
    try {
      provider.released(r);
      LOG.info("driver {} claim {}: allocation of {} released", driver, r.claim(), r.key());
    } catch (Exception e) {
      LOG.warn(
          "driver {} claim {}: releasing {} failed: {}", driver, r.claim(), r.key(), e.toString());
    }
  }

  /** Asks about every unsettled device of the claim and writes what changed. */
  private void poll(String uid) {
    Work w = work.get(uid);
    if (w == null) {
      return;
    }
    w.next = null;
    ResourceClaim claim = w.claim;
    boolean pending = false;
    List<AllocatedDeviceStatus> entries = new ArrayList<>();
    for (BindingRequest d : w.devices) {
      Optional<AllocatedDeviceStatus> current = current(claim, d);
      if (settled(claim, d)) {
        entries.add(ours(d, current));
        continue;
      }
      BindingStatus s = ask(d);
      pending |= s instanceof BindingStatus.Pending;
      entries.add(entry(d, s, current));
    }
    boolean changed = false;
    for (AllocatedDeviceStatus e : entries) {
      changed |= !sameConditions(e, current(claim, e));
    }
    if (changed) {
      try {
        apply(claim, entries);
      } catch (KubeException e) {
        LOG.warn(
            "driver {} claim {}: writing binding conditions failed (HTTP {}): {}; trying again",
            driver,
            ref(claim),
            e.status(),
            e.getMessage());
        pending = true;
      }
    }
    if (pending && !thread.isShutdown()) {
      long millis = Math.max(10, provider.bindingPollInterval().toMillis());
      w.next = thread.schedule(() -> poll(uid), millis, TimeUnit.MILLISECONDS);
    }
  }

  private BindingStatus ask(BindingRequest d) {
    try {
      return Objects.requireNonNull(provider.bindingStatus(d), "bindingStatus returned null");
    } catch (Exception e) {
      LOG.warn(
          "driver {} claim {}: binding status of {} failed: {}; asking again",
          driver,
          d.claim(),
          d.key(),
          e.toString());
      return BindingStatus.pending("the driver could not tell: " + e.getMessage());
    }
  }

  private void apply(ResourceClaim claim, List<AllocatedDeviceStatus> entries)
      throws KubeException {
    ClaimStatusWriter.apply(client, ref(claim), entries, fieldManager(driver));
    LOG.info("driver {} claim {}: binding conditions {}", driver, ref(claim), describe(entries));
  }

  // ---------------------------------------------------------------------------------------------
  // Pure rules

  /** The claim's allocations of this driver's devices with binding conditions, on this node. */
  List<BindingRequest> requests(ResourceClaim claim) {
    Optional<AllocationResult> a = claim.status().allocation();
    if (a.isEmpty() || !pinnedTo(a.get().nodeSelector(), node)) {
      return List.of();
    }
    List<BindingRequest> out = new ArrayList<>();
    for (DeviceRequestAllocationResult r : a.get().devices().results()) {
      if (r.driver().equals(driver) && !r.bindingConditions().isEmpty()) {
        BindingRequest b =
            BindingRequest.of(ref(claim), r.request(), r.pool(), r.device())
                .withBindingConditions(r.bindingConditions(), r.bindingFailureConditions());
        out.add(r.shareID().map(b::withShareId).orElse(b));
      }
    }
    return List.copyOf(out);
  }

  /**
   * Whether the allocation can only be used on {@code node}: every term names it as the only {@code
   * metadata.name}, as the scheduler writes it for node-local devices and {@code bindsToNode}.
   */
  static boolean pinnedTo(Optional<NodeSelector> selector, String node) {
    if (selector.isEmpty() || selector.get().nodeSelectorTerms().isEmpty()) {
      return false;
    }
    for (NodeSelector.Term t : selector.get().nodeSelectorTerms()) {
      boolean names =
          t.matchFields().stream()
              .anyMatch(
                  r ->
                      r.key().equals("metadata.name")
                          && r.operator().equals("In")
                          && r.values().equals(List.of(node)));
      if (!names) {
        return false;
      }
    }
    return true;
  }

  private Optional<AllocatedDeviceStatus> current(ResourceClaim claim, BindingRequest d) {
    String key = driver + "/" + d.key();
    return claim.status().devices().stream().filter(s -> s.key().equals(key)).findFirst();
  }

  private Optional<AllocatedDeviceStatus> current(ResourceClaim claim, AllocatedDeviceStatus e) {
    return claim.status().devices().stream().filter(s -> s.key().equals(e.key())).findFirst();
  }

  /** Every binding condition True, or a failure condition True: the scheduler has its answer. */
  boolean settled(ResourceClaim claim, BindingRequest d) {
    Optional<AllocatedDeviceStatus> s = current(claim, d);
    if (s.isEmpty()) {
      return false;
    }
    if (d.bindingFailureConditions().stream().anyMatch(c -> isTrue(s.get(), c))) {
      return true;
    }
    return d.bindingConditions().stream().allMatch(c -> isTrue(s.get(), c));
  }

  private static boolean isTrue(AllocatedDeviceStatus s, String type) {
    return s.conditions().stream()
        .anyMatch(c -> c.type().equals(type) && c.status().equals("True"));
  }

  /** The binding conditions of a settled device as the API server holds them. */
  private AllocatedDeviceStatus ours(BindingRequest d, Optional<AllocatedDeviceStatus> current) {
    List<io.dra4j.kube.Condition> kept = new ArrayList<>();
    for (io.dra4j.kube.Condition c :
        current.map(AllocatedDeviceStatus::conditions).orElse(List.of())) {
      if (d.bindingConditions().contains(c.type())
          || d.bindingFailureConditions().contains(c.type())) {
        kept.add(c);
      }
    }
    return new AllocatedDeviceStatus(
        driver, d.pool(), d.device(), d.shareId(), kept, null, null, null);
  }

  /** The conditions for what the provider said, with transition times kept where unchanged. */
  AllocatedDeviceStatus entry(
      BindingRequest d, BindingStatus s, Optional<AllocatedDeviceStatus> current) {
    List<Condition> conditions = new ArrayList<>();
    if (s instanceof BindingStatus.Ready r) {
      for (String c : d.bindingConditions()) {
        conditions.add(Condition.of(c, true, READY, clip(r.message())));
      }
    } else if (s instanceof BindingStatus.Failed f) {
      String reason = DeviceStatuses.isReason(f.reason()) ? f.reason() : FAILED;
      for (String c : d.bindingConditions()) {
        conditions.add(Condition.of(c, false, FAILED, clip(f.message())));
      }
      if (!d.bindingFailureConditions().isEmpty()) {
        conditions.add(
            Condition.of(d.bindingFailureConditions().get(0), true, reason, clip(f.message())));
      }
    } else {
      String message = ((BindingStatus.Pending) s).message();
      for (String c : d.bindingConditions()) {
        conditions.add(Condition.of(c, false, PENDING, clip(message)));
      }
    }
    DeviceStatus status = DeviceStatus.of(conditions);
    return DeviceStatuses.toWire(
        driver, d.pool(), d.device(), d.shareId(), status, current, clock.instant());
  }

  /** Whether the API server already holds these conditions (times aside). */
  private static boolean sameConditions(
      AllocatedDeviceStatus wanted, Optional<AllocatedDeviceStatus> held) {
    for (io.dra4j.kube.Condition c : wanted.conditions()) {
      boolean found =
          held.isPresent()
              && held.get().conditions().stream()
                  .anyMatch(
                      h ->
                          h.type().equals(c.type())
                              && h.status().equals(c.status())
                              && h.reason().equals(c.reason())
                              && h.message().equals(c.message()));
      if (!found) {
        return false;
      }
    }
    return true;
  }

  private static String clip(String message) {
    return message.length() <= MAX_MESSAGE ? message : message.substring(0, MAX_MESSAGE);
  }

  private static ClaimRef ref(ResourceClaim claim) {
    return ClaimRef.of(
        claim.metadata().namespace(), claim.metadata().name(), claim.metadata().uid());
  }

  private static String describe(List<AllocatedDeviceStatus> entries) {
    List<String> out = new ArrayList<>();
    for (AllocatedDeviceStatus e : entries) {
      List<String> cs = new ArrayList<>();
      e.conditions().forEach(c -> cs.add(c.type() + "=" + c.status()));
      out.add(e.pool() + "/" + e.device() + " " + cs);
    }
    return String.join(", ", out);
  }
}
