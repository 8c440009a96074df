package io.dra4j.runtime.internal.claims;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.dra4j.api.claim.AllocatedDevice;
import io.dra4j.api.claim.CallContext;
import io.dra4j.api.claim.ClaimAllocation;
import io.dra4j.api.claim.ClaimRef;
import io.dra4j.api.claim.PrepareRequest;
import io.dra4j.api.claim.PrepareResult;
import io.dra4j.api.claim.PreparedClaim;
import io.dra4j.api.provider.DeviceProvider;
import io.dra4j.api.provider.Inventory;
import io.dra4j.api.provider.ProviderContext;
import io.dra4j.kube.ObjectMeta;
import io.dra4j.kube.ResourceClaim;
import io.dra4j.runtime.errors.DriverErrorHandler;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Function;
import org.junit.jupiter.api.Test;
import org.slf4j.helpers.NOPLogger;

/** How the provider is called: which prepare method, and the call context it gets. */
class ProviderCallsTest {

  static final ClaimEvents EVENTS =
      new ClaimEvents(
          "gpu.example.com",
          NOPLogger.NOP_LOGGER,
          ClaimListener.NONE,
          DriverErrorHandler.logging());

  static final ClaimRef REF = ClaimRef.of("ns", "c", "uid-c");

  static final ResolvedClaim CLAIM =
      new ResolvedClaim(
          REF,
          ResourceClaim.of(ObjectMeta.named("ns", "c"), null),
          List.of(AllocatedDevice.of("gpu", "p", "gpu-0")),
          List.of(List.of()));

  /** A kubelet call the test cancels. */
  static final class Call implements NodeCall {
    final List<Runnable> hooks = new ArrayList<>();
    boolean cancelled;

    @Override
    public long requestId() {
      return 1;
    }

    @Override
    public Optional<Instant> deadline() {
      return Optional.of(Instant.parse("2026-01-01T00:00:45Z"));
    }

    @Override
    public synchronized boolean isCancelled() {
      return cancelled;
    }

    @Override
    public synchronized void onCancel(Runnable hook) {
      if (cancelled) {
        hook.run();
      } else {
        hooks.add(hook);
      }
    }

    void cancel() {
      List<Runnable> due;
      synchronized (this) {
        cancelled = true;
        due = List.copyOf(hooks);
      }
      due.forEach(Runnable::run);
    }
  }

  /** A provider of the new kind: prepare(PrepareRequest) does what the test says. */
  static final class RequestProvider implements DeviceProvider {
    final Function<PrepareRequest, PrepareResult> body;

    RequestProvider(Function<PrepareRequest, PrepareResult> body) {
      this.body = body;
    }

    @Override
    public Inventory discover(ProviderContext context) {
      throw new UnsupportedOperationException();
    }

    @Override
    public PrepareResult prepare(PrepareRequest request) {
      return body.apply(request);
    }

    @Override
    public void unprepare(PreparedClaim claim) {}
  }

  @Test
  void aProviderThatImplementsNeitherPrepareIsRefusedAtOnce() {
    DeviceProvider neither =
        new DeviceProvider() {
          @Override
          public Inventory discover(ProviderContext context) {
            throw new UnsupportedOperationException();
          }

          @Override
          public void unprepare(PreparedClaim claim) {}

          @Override
          public String name() {
            return "half";
          }
        };
    assertThatThrownBy(() -> new ProviderCalls(neither, EVENTS))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining(
            "provider half (" + neither.getClass().getName() + ") implements neither");
  }

  @Test
  void anExistingProviderGetsTheAllocation() throws Exception {
    List<ClaimAllocation> seen = new CopyOnWriteArrayList<>();
    DeviceProvider old =
        new DeviceProvider() {
          @Override
          public Inventory discover(ProviderContext context) {
            throw new UnsupportedOperationException();
          }

          @Override
          public PrepareResult prepare(ClaimAllocation allocation) {
            seen.add(allocation);
            return PrepareResult.of(List.of());
          }

          @Override
          public void unprepare(PreparedClaim claim) {}
        };
    new ProviderCalls(old, EVENTS).prepare(CLAIM, new Call());
    assertThat(seen).containsExactly(CLAIM.allocation());
  }

  @Test
  void hooksRunOnceWhenTheKubeletGivesUpDuringThePrepare() throws Exception {
    Call call = new Call();
    List<String> ran = new CopyOnWriteArrayList<>();
    List<CallContext> contexts = new ArrayList<>();
    new ProviderCalls(
            new RequestProvider(
                r -> {
                  contexts.add(r.call());
                  assertThat(r.call().deadline()).isEqualTo(call.deadline());
                  r.call().onCancel(() -> ran.add("first"));
                  r.call().onCancel(() -> ran.add("second"));
                  assertThat(r.call().isCancelled()).isFalse();
                  call.cancel();
                  assertThat(r.call().isCancelled()).isTrue();
                  // Registered after the cancellation: runs at once.
                  r.call().onCancel(() -> ran.add("late"));
                  call.cancel();
                  return PrepareResult.of(List.of());
                }),
            EVENTS)
        .prepare(CLAIM, call);
    assertThat(ran).containsExactly("first", "second", "late");
    // After the prepare returned, its context runs nothing.
    contexts.get(0).onCancel(() -> ran.add("after"));
    assertThat(ran).containsExactly("first", "second", "late");
  }

  @Test
  void aHookRegisteredDuringAPrepareDoesNotRunAfterIt() throws Exception {
    Call call = new Call();
    List<String> ran = new CopyOnWriteArrayList<>();
    new ProviderCalls(
            new RequestProvider(
                r -> {
                  r.call().onCancel(() -> ran.add("hook"));
                  return PrepareResult.of(List.of());
                }),
            EVENTS)
        .prepare(CLAIM, call);
    call.cancel();
    assertThat(ran).isEmpty();
  }

  @Test
  void aFailingHookDoesNotStopTheOthers() throws Exception {
    Call call = new Call();
    List<String> ran = new CopyOnWriteArrayList<>();
    new ProviderCalls(
            new RequestProvider(
                r -> {
                  r.call()
                      .onCancel(
                          () -> {
                            throw new IllegalStateException("boom");
                          });
                  r.call().onCancel(() -> ran.add("second"));
                  call.cancel();
                  return PrepareResult.of(List.of());
                }),
            EVENTS)
        .prepare(CLAIM, call);
    assertThat(ran).containsExactly("second");
  }
}
