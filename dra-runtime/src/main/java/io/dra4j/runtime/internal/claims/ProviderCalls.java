package io.dra4j.runtime.internal.claims;

import io.dra4j.api.claim.DeviceException;
import io.dra4j.api.claim.PrepareResult;
import io.dra4j.api.provider.DeviceProvider;
import io.dra4j.runtime.internal.checkpoint.ClaimCheckpoint;
import java.time.Duration;

/** The pipeline's calls of the vendor's {@link DeviceProvider}, each timed for the listener. */
final class ProviderCalls {

  private final DeviceProvider provider;
  private final ClaimEvents events;

  ProviderCalls(DeviceProvider provider, ClaimEvents events) {
    this.provider = provider;
    this.events = events;
  }

  String name() {
    return provider.name();
  }

  PrepareResult prepare(ResolvedClaim claim) throws DeviceException {
    long start = System.nanoTime();
    boolean failed = true;
    try {
      PrepareResult result = provider.prepare(claim.allocation());
      failed = false;
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
}
