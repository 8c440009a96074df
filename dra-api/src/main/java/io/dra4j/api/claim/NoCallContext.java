package io.dra4j.api.claim;

import java.time.Instant;
import java.util.Objects;
import java.util.Optional;

/** {@link CallContext#none()}. */
final class NoCallContext implements CallContext {
  static final NoCallContext INSTANCE = new NoCallContext();

  private NoCallContext() {}

  @Override
  public Optional<Instant> deadline() {
    return Optional.empty();
  }

  @Override
  public boolean isCancelled() {
    return false;
  }

  @Override
  public void onCancel(Runnable hook) {
    Objects.requireNonNull(hook, "hook");
  }

  @Override
  public String toString() {
    return "CallContext.none()";
  }
}
