package io.dra4j.api.provider;

import io.dra4j.api.claim.ClaimAllocation;
import io.dra4j.api.claim.DeviceException;
import io.dra4j.api.claim.PrepareRequest;
import io.dra4j.api.claim.PrepareResult;
import io.dra4j.api.claim.PreparedClaim;

/**
 * The one interface a hardware vendor implements: {@link #discover}, one of the two {@code prepare}
 * methods and {@link #unprepare}. The runtime owns everything else: the kubelet gRPC contract,
 * ResourceSlice publishing, CDI spec files, checkpoints, claim status, health streaming and taints.
 *
 * <p>Providers are found with {@link java.util.ServiceLoader}: list the implementation in {@code
 * META-INF/services/io.dra4j.api.provider.DeviceProvider} and give it a public no-argument
 * constructor that does no hardware work (the launcher constructs every provider on the class path
 * to find the one asked for, and closes the others).
 *
 * <h2>Lifecycle</h2>
 *
 * <ol>
 *   <li>At start the runtime first recovers its checkpoint records: a prepare that a crash
 *       interrupted, and every record written before the host rebooted, is rolled back with {@link
 *       #unprepare} ({@link PreparedClaim#completed()} false for an interrupted one). So {@code
 *       unprepare} can be called before {@code discover}, once per such record.
 *   <li>{@link #discover} runs once before the kubelet can call, and again whenever the provider
 *       reports an inventory change through {@link ProviderContext#inventoryChanged()}.
 *   <li>The kubelet sockets open; from then on {@link #prepare} and {@link #unprepare} are called
 *       for the kubelet's claims. A provider that also implements {@link
 *       io.dra4j.api.health.HealthReporting} is asked to start monitoring right after; it reports
 *       every device again within the device's health check timeout (the runtime does not repeat
 *       reports, so a monitor that stops shows as unknown at the kubelet).
 *   <li>{@link #close} is called once, on shutdown, after the kubelet sockets closed and the last
 *       call returned, and after discovery stopped. A health monitor may still report until it
 *       returns.
 * </ol>
 *
 * <h2>Threads</h2>
 *
 * {@code discover} runs on one runtime thread ({@code dra4j-inventory}), never twice at once, and
 * may run concurrently with {@code prepare} and {@code unprepare}, which run on the threads of the
 * kubelet's gRPC calls (the rollbacks of recovery run on the thread that starts the driver). By
 * default ({@link #threadSafe()} false) the runtime makes one {@code prepare} or {@code unprepare}
 * call at a time, like the Go helper. A provider whose {@code threadSafe()} returns true gets
 * concurrent calls for different claims, never two for the same claim; the runtime still refuses to
 * hand one device to two claims. Either way, in a rolling update the calls of the old and the new
 * driver process never interleave. No method may block for long: the kubelet's calls have a
 * deadline, and {@code discover} holds up every publish.
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
 * <h2>Failures: what is retried, what is fatal</h2>
 *
 * <ul>
 *   <li>{@code discover} throws: the runtime reports a recoverable error, keeps what it published
 *       before (it never publishes an empty inventory for a failure) and calls it again after 1, 2,
 *       4 ... seconds, at most 60 s apart, until it succeeds.
 *   <li>{@code prepare} throws a {@link DeviceException}: that claim fails with the message (the
 *       kubelet retries the pod's prepare); other claims of the same call are not affected. Before
 *       answering, the runtime undoes what this prepare may have set up with {@code unprepare}
 *       ({@code completed} false); when that fails too, the record is kept and the rollback is
 *       tried again on the next prepare of the claim or at the next start. Any other exception, a
 *       {@code null} result, or a result that does not list each allocated device exactly once,
 *       fails and undoes the claim the same way; an unexpected exception is also logged with its
 *       stack trace.
 *   <li>{@code unprepare} throws: the claim stays prepared and its record is kept; the kubelet
 *       retries. A failure for a record written before the host rebooted is reported and ignored
 *       (the reboot released the devices).
 *   <li>Nothing a provider throws stops the driver, with one exception: {@code
 *       startHealthMonitoring} throwing makes the driver's start fail.
 * </ul>
 *
 * <h2>Defaults</h2>
 *
 * {@link #name()}: the class's simple name. {@link #threadSafe()}: false. {@link #close()}:
 * nothing.
 *
 * <p>Optional capabilities are separate interfaces the provider may also implement: {@link
 * io.dra4j.api.health.HealthReporting}, {@link TypedConfig} and {@link
 * io.dra4j.api.binding.DeviceBinding}.
 */
public interface DeviceProvider extends AutoCloseable {

  /**
   * A short name, used to pick a provider when several are on the class path ({@code --provider})
   * and in log lines. Default: the class's simple name.
   */
  default String name() {
    return getClass().getSimpleName();
  }

  /**
   * Finds the devices on this node. The context stays valid for the provider's life; keep it.
   *
   * @throws Exception when discovery fails; the runtime reports it to the driver's error handler,
   *     retries with backoff (1 s doubling to 60 s) and keeps serving what it published before
   */
  Inventory discover(ProviderContext context) throws Exception;

  /**
   * Prepares the devices of one claim and says what containers need to use them: one {@link
   * io.dra4j.api.claim.PreparedDevice} for each allocated device, with container edits (the runtime
   * writes them into the claim's CDI spec), CDI device ids of specs the provider manages itself (a
   * static spec such as {@code nvidia-ctk cdi generate} writes), or both. Not called again for a
   * claim the runtime recorded as prepared in this boot.
   *
   * <p>The runtime calls this method; implement it, or {@link #prepare(ClaimAllocation)}, which it
   * calls by default. The request adds to the allocation the whole claim, the kubelet's deadline
   * and cancellation ({@link io.dra4j.api.claim.CallContext}), and every opaque config that applies
   * to a device.
   *
   * @throws DeviceException to fail this claim with a message for the user; the runtime then calls
   *     {@link #unprepare} to undo, and the kubelet retries; other claims of the same call are not
   *     affected
   */
  default PrepareResult prepare(PrepareRequest request) throws DeviceException {
    return prepare(request.allocation());
  }

  /**
   * Prepares the devices of one claim, given this driver's allocation only; see {@link
   * #prepare(PrepareRequest)}, which calls it. A provider implements one of the two; the runtime
   * refuses to start with one that implements neither.
   *
   * @throws DeviceException as {@link #prepare(PrepareRequest)}
   */
  default PrepareResult prepare(ClaimAllocation allocation) throws DeviceException {
    throw new DeviceException(
        "provider "
            + name()
            + " implements neither prepare(PrepareRequest) nor prepare(ClaimAllocation)");
  }

  /**
   * Releases what {@code prepare} set up, or undoes what an unfinished prepare may have set up
   * ({@link PreparedClaim#completed()} false). Must succeed when the devices are already released.
   *
   * @throws DeviceException when releasing failed; the claim stays prepared and the kubelet retries
   */
  void unprepare(PreparedClaim claim) throws DeviceException;

  /**
   * Whether prepare and unprepare may run concurrently for different claims. Read once, when the
   * driver starts. Default: false (one call at a time).
   */
  default boolean threadSafe() {
    return false;
  }

  /**
   * Stops background work (health monitoring, hot-plug watches). Called once, after the last
   * prepare or unprepare returned. Default: nothing.
   */
  @Override
  default void close() {}
}
