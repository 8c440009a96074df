package io.dra4j.api.provider;

import io.dra4j.api.claim.ClaimAllocation;
import io.dra4j.api.claim.DeviceException;
import io.dra4j.api.claim.PrepareResult;
import io.dra4j.api.claim.PreparedClaim;

/**
 * The one interface a hardware vendor implements. The runtime owns everything else: the kubelet
 * gRPC contract, ResourceSlice publishing, CDI spec files, checkpoints, claim status, health
 * streaming and taints.
 *
 * <p>Providers are found with {@link java.util.ServiceLoader}: list the implementation in {@code
 * META-INF/services/io.dra4j.api.provider.DeviceProvider} and give it a public no-argument
 * constructor.
 *
 * <h2>Lifecycle</h2>
 *
 * {@link #discover} is called first, once at start and again whenever the provider reports an
 * inventory change through {@link ProviderContext#inventoryChanged()}. Only then are {@link
 * #prepare} and {@link #unprepare} called. {@link #close} is called on shutdown.
 *
 * <h2>Idempotency</h2>
 *
 * The kubelet repeats calls: after its own restart it prepares claims that are already prepared,
 * and it may unprepare claims whose prepare never finished. The runtime answers a repeated prepare
 * from its checkpoint without calling {@code prepare} again, and skips {@code unprepare} for claims
 * it never recorded. Still, {@code prepare} must be deterministic for the same allocation (put
 * anything random into {@link io.dra4j.api.claim.PreparedDevice#recorded()}), and {@code unprepare}
 * must succeed when some or all of its devices are already released, because the driver can crash
 * between any two steps.
 *
 * <h2>Threads</h2>
 *
 * By default the runtime never calls {@code prepare} or {@code unprepare} concurrently, like the Go
 * helper. A provider whose {@link #threadSafe()} returns true gets concurrent calls for different
 * claims; the runtime still refuses to hand one device to two claims. {@code discover} may run
 * concurrently with prepare.
 *
 * <p>Optional capabilities are separate interfaces the provider may also implement: {@link
 * io.dra4j.api.health.HealthReporting} and {@link TypedConfig}.
 */
public interface DeviceProvider extends AutoCloseable {

  /**
   * A short name, used to pick a provider when several are on the class path ({@code --provider}).
   */
  default String name() {
    return getClass().getSimpleName();
  }

  /**
   * Finds the devices on this node. The context stays valid for the provider's life; keep it.
   *
   * @throws Exception when discovery fails; the runtime logs it, retries with backoff and keeps
   *     serving what it published before
   */
  Inventory discover(ProviderContext context) throws Exception;

  /**
   * Prepares the devices of one claim and says what containers need to use them.
   *
   * @throws DeviceException to fail this claim with a message for the user; other claims of the
   *     same call are not affected
   */
  PrepareResult prepare(ClaimAllocation allocation) throws DeviceException;

  /**
   * Releases what {@link #prepare} set up. Must succeed when the devices are already released.
   *
   * @throws DeviceException when releasing failed; the kubelet retries
   */
  void unprepare(PreparedClaim claim) throws DeviceException;

  /** Whether prepare and unprepare may run concurrently for different claims. */
  default boolean threadSafe() {
    return false;
  }

  /** Stops background work (health monitoring, hot-plug watches). */
  @Override
  default void close() {}
}
