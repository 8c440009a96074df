package io.dra4j.api.binding;

import java.time.Duration;

/**
 * Capability: some devices must be attached after the scheduler allocated them and before the pod
 * may bind, for example an accelerator a fabric manager connects to the node (KEP-5007, binding
 * conditions). Such devices publish {@code bindingConditions} and {@code bindingFailureConditions}
 * ({@link io.dra4j.api.device.Device.Builder#bindingConditions}); the scheduler then waits in its
 * PreBind step until every binding condition is {@code True} in the claim's {@code status.devices}
 * (the pod binds), or one failure condition is (the claim is deallocated and the pod scheduled
 * again), or its timeout passes (10 minutes by default).
 *
 * <p>A provider implementing this interface reports how attaching goes; the runtime watches the
 * claims allocated to this node's devices that carry binding conditions, asks the provider, and
 * writes the conditions with server-side apply under its own field manager ({@code
 * <driver>/binding}), so they survive the prepare-time status of the same device. No kubelet call
 * is involved: the pod is not on the node yet.
 *
 * <p>Threads: the runtime calls from one thread of its own, one device at a time. Calls must return
 * quickly (start a long attachment in the background and answer {@link BindingStatus#pending}).
 *
 * <p>Devices of a pool without a node (all nodes, a node selector) need {@code bindsToNode}, so
 * that the scheduler pins the allocation to a node whose driver then answers.
 */
public interface DeviceBinding {

  /**
   * Where attaching the device stands; the first call for a device should start it. Asked again
   * every {@link #bindingPollInterval()} while the answer is {@link BindingStatus.Pending}, and
   * again after a driver restart, so it must be idempotent. An exception counts as pending and is
   * logged.
   */
  BindingStatus bindingStatus(BindingRequest request) throws Exception;

  /**
   * The allocation of a device the runtime asked about is gone (the claim was deallocated or
   * deleted, after a failure or after use): undo the attachment. Reported once for each allocation
   * seen while the driver runs; an allocation that ended while the driver was down is not reported,
   * so a provider that attaches should also reconcile on start. Default: nothing.
   */
  default void released(BindingRequest request) throws Exception {}

  /** How often a pending device is asked again. Default 1 second. */
  default Duration bindingPollInterval() {
    return Duration.ofSeconds(1);
  }
}
