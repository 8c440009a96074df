package io.dra4j.testkit.claims;

import com.fasterxml.jackson.annotation.JsonProperty;
import io.dra4j.api.cdi.ContainerEdits;
import io.dra4j.api.cdi.DeviceNode;
import io.dra4j.api.claim.AllocatedDevice;
import io.dra4j.api.claim.ClaimAllocation;
import io.dra4j.api.claim.DeviceException;
import io.dra4j.api.claim.PrepareResult;
import io.dra4j.api.claim.PreparedClaim;
import io.dra4j.api.claim.PreparedDevice;
import io.dra4j.api.metadata.DeviceMetadata;
import io.dra4j.api.provider.ConfigType;
import io.dra4j.api.provider.DeviceProvider;
import io.dra4j.api.provider.Inventory;
import io.dra4j.api.provider.ProviderContext;
import io.dra4j.api.provider.TypedConfig;
import io.dra4j.api.status.DeviceStatus;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;
import java.util.function.Predicate;

/**
 * A provider for the pipeline tests: each device gets an env edit (and optionally a required device
 * node), records a partition id, and optionally reports a status. Calls are recorded.
 */
class TestProvider implements DeviceProvider, TypedConfig {

  static final String API_VERSION = "gpu.example.com/v1alpha1";

  /** A config record without apiVersion/kind fields. */
  record GpuConfig(String sharing, Integer replicas) {}

  /** A config record that declares apiVersion and kind itself. */
  record NicConfig(
      @JsonProperty("apiVersion") String apiVersion, @JsonProperty("kind") String kind, int mtu) {}

  final List<ClaimAllocation> prepareCalls = new CopyOnWriteArrayList<>();
  final List<PreparedClaim> unprepareCalls = new CopyOnWriteArrayList<>();
  volatile boolean threadSafe;
  volatile boolean deviceNodes;
  volatile Predicate<ClaimAllocation> failPrepare = a -> false;
  volatile boolean failUnprepare;
  volatile Function<AllocatedDevice, Optional<DeviceStatus>> status = d -> Optional.empty();
  volatile Function<AllocatedDevice, Optional<DeviceMetadata>> metadata = d -> Optional.empty();

  /** Characters of an extra variable in every device's edits: a CDI spec that big. */
  volatile int padding;

  /** Runs inside each prepare, before the devices are prepared. */
  @FunctionalInterface
  interface During {
    void run(ClaimAllocation allocation) throws InterruptedException;
  }

  volatile During during = a -> {};

  /** How long each prepare takes, to widen the window in which calls could overlap. */
  volatile long prepareMillis;

  /** Prepares running right now, and the most seen at once. */
  final AtomicInteger inFlight = new AtomicInteger();

  final AtomicInteger maxInFlight = new AtomicInteger();

  /** Devices currently prepared, to prove that no device is handed out twice. */
  final List<String> held = Collections.synchronizedList(new ArrayList<>());

  @Override
  public Inventory discover(ProviderContext context) {
    throw new UnsupportedOperationException("not used by the pipeline");
  }

  @Override
  public PrepareResult prepare(ClaimAllocation allocation) throws DeviceException {
    maxInFlight.accumulateAndGet(inFlight.incrementAndGet(), Math::max);
    try {
      if (prepareMillis > 0) {
        Thread.sleep(prepareMillis); // the point: a slow device
      }
      during.run(allocation);
      return doPrepare(allocation);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new DeviceException("interrupted", e);
    } finally {
      inFlight.decrementAndGet();
    }
  }

  private PrepareResult doPrepare(ClaimAllocation allocation) throws DeviceException {
    prepareCalls.add(allocation);
    if (failPrepare.test(allocation)) {
      throw new DeviceException("simulated failure for " + allocation.claim());
    }
    List<PreparedDevice> out = new ArrayList<>();
    for (AllocatedDevice d : allocation.devices()) {
      String sharing =
          d.config().map(c -> c instanceof GpuConfig g ? g.sharing() : "nic").orElse("default");
      ContainerEdits.Builder edits =
          ContainerEdits.builder().env("GPU_" + d.device().replace('-', '_'), sharing);
      if (padding > 0) {
        edits.env("PADDING", "x".repeat(padding));
      }
      if (deviceNodes) {
        edits.deviceNode(DeviceNode.required("/dev/" + d.device()));
      }
      PreparedDevice.Builder b =
          PreparedDevice.builder(d).edits(edits.build()).record("partition", d.device() + "-p");
      status.apply(d).ifPresent(b::status);
      metadata.apply(d).ifPresent(b::metadata);
      out.add(b.build());
      if (!d.adminAccess()) {
        held.add(d.key());
      }
    }
    return PrepareResult.of(out);
  }

  @Override
  public void unprepare(PreparedClaim claim) throws DeviceException {
    unprepareCalls.add(claim);
    if (failUnprepare) {
      throw new DeviceException("simulated unprepare failure for " + claim.claim());
    }
    claim
        .devices()
        .forEach(
            d ->
                held.remove(
                    d.pool() + "/" + d.device() + d.shareId().map(s -> "#" + s).orElse("")));
  }

  @Override
  public boolean threadSafe() {
    return threadSafe;
  }

  @Override
  public List<ConfigType<?>> configTypes() {
    return List.of(
        ConfigType.of(API_VERSION, "GpuConfig", GpuConfig.class),
        ConfigType.of(API_VERSION, "NicConfig", NicConfig.class));
  }

  @Override
  public void validate(Object config) {
    if (config instanceof GpuConfig g
        && g.sharing() != null
        && !List.of("none", "timeslice").contains(g.sharing())) {
      throw new IllegalArgumentException(
          "sharing: \"" + g.sharing() + "\" is not supported (none, timeslice)");
    }
  }
}
