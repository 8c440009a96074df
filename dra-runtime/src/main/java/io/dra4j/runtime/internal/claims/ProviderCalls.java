package io.dra4j.runtime.internal.claims;

import io.dra4j.api.claim.CallContext;
import io.dra4j.api.claim.ClaimAllocation;
import io.dra4j.api.claim.DeviceException;
import io.dra4j.api.claim.PrepareRequest;
import io.dra4j.api.claim.PrepareResult;
import io.dra4j.api.provider.DeviceProvider;
import io.dra4j.runtime.internal.checkpoint.ClaimCheckpoint;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * The pipeline's calls of the vendor's {@link DeviceProvider}, each timed for the listener. A
 * prepare gets the kubelet's call as its {@link CallContext}, scoped to that prepare.
 */
final class ProviderCalls {

  private final DeviceProvider provider;
  private final ClaimEvents events;

  /**
   * @throws IllegalArgumentException when the provider implements neither {@code prepare} method
   */
  ProviderCalls(DeviceProvider provider, ClaimEvents events) {
    if (!overrides(provider, PrepareRequest.class) && !overrides(provider, ClaimAllocation.class)) {
      throw new IllegalArgumentException(
          "provider "
              + provider.name()
              + " ("
              + provider.getClass().getName()
              + ") implements neither DeviceProvider.prepare(PrepareRequest) nor"
              + " prepare(ClaimAllocation)");
    }
    this.provider = provider;
    this.events = events;
  }

  private static boolean overrides(DeviceProvider provider, Class<?> parameter) {
    try {
      return provider.getClass().getMethod("prepare", parameter).getDeclaringClass()
          != DeviceProvider.class;
    } catch (NoSuchMethodException e) {
      throw new IllegalStateException("DeviceProvider has no prepare(" + parameter + ")", e);
    }
  }

  String name() {
    return provider.name();
  }

  PrepareResult prepare(ResolvedClaim claim, NodeCall call) throws DeviceException {
    long start = System.nanoTime();
    boolean failed = true;
    try (Scoped context = new Scoped(call)) {
      PrepareResult result = provider.prepare(claim.request(context));
      failed = false;
      if (call.isCancelled()) {
        events
            .log()
            .warn(
                "driver {} claim {}: provider {} returned from prepare after the kubelet gave up on"
                    + " the call{}; the kubelet retries, and the checkpoint answers the retry",
                events.driver(),
                claim.ref(),
                provider.name(),
                call.deadline().map(d -> " (deadline " + d + ")").orElse(""));
      }
      return result;
    } finally {
      took(ClaimListener.ProviderCall.PREPARE, start, failed);
    }
  }

  /** Hands the provider what the record says it prepared (or started to). */
  void unprepare(ClaimCheckpoint record) throws DeviceException {
    long start = System.nanoTime();
    boolean failed = true;
    try {
      provider.unprepare(record.toPreparedClaim());
      failed = false;
    } finally {
      took(ClaimListener.ProviderCall.UNPREPARE, start, failed);
    }
  }

  private void took(ClaimListener.ProviderCall call, long start, boolean failed) {
    events.providerCalled(call, Duration.ofNanos(System.nanoTime() - start), failed);
  }

  /**
   * The kubelet's call as one prepare sees it: cancellation hooks registered during the prepare run
   * at most once, and never after it returned.
   */
  private final class Scoped implements CallContext, AutoCloseable {
    private final NodeCall call;
    private final List<Runnable> hooks = new ArrayList<>(); // guarded by this
    private boolean registered; // guarded by this
    private boolean fired; // guarded by this
    private boolean closed; // guarded by this

    Scoped(NodeCall call) {
      this.call = call;
    }

    @Override
    public Optional<Instant> deadline() {
      return call.deadline();
    }

    @Override
    public boolean isCancelled() {
      return call.isCancelled();
    }

    @Override
    public void onCancel(Runnable hook) {
      Objects.requireNonNull(hook, "hook");
      boolean register;
      synchronized (this) {
        if (closed) {
          return;
        }
        if (!fired) {
          hooks.add(hook);
          register = !registered;
          registered = true;
          hook = null;
        } else {
          register = false;
        }
      }
      if (hook != null) {
        run(hook); // the call was cancelled already
      } else if (register) {
        call.onCancel(this::fire);
      }
    }

    private void fire() {
      List<Runnable> due;
      synchronized (this) {
        if (closed || fired) {
          return;
        }
        fired = true;
        due = List.copyOf(hooks);
        hooks.clear();
      }
      due.forEach(this::run);
    }

    private void run(Runnable hook) {
      try {
        hook.run();
      } catch (RuntimeException e) {
        events
            .log()
            .warn(
                "driver {}: a cancellation hook of provider {} failed: {}",
                events.driver(),
                provider.name(),
                e.toString());
      }
    }

    @Override
    public synchronized void close() {
      closed = true;
      hooks.clear();
    }
  }
}
