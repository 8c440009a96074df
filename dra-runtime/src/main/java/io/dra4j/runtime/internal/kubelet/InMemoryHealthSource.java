package io.dra4j.runtime.internal.kubelet;

import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;

/**
 * A {@link HealthSource} that hands every {@link #publish published} snapshot to all subscribers,
 * and the latest one to each new subscriber. It never resends on its own: whoever publishes must
 * publish again before the kubelet's timeout (calling {@link #publish} with the same snapshot is a
 * resend).
 */
public final class InMemoryHealthSource implements HealthSource {

  private final CopyOnWriteArrayList<Consumer<HealthSnapshot>> listeners =
      new CopyOnWriteArrayList<>();
  private final AtomicReference<HealthSnapshot> latest = new AtomicReference<>();

  /** Stores {@code snapshot} as the latest and delivers it to every subscriber. */
  public void publish(HealthSnapshot snapshot) {
    Objects.requireNonNull(snapshot, "snapshot");
    latest.set(snapshot);
    for (Consumer<HealthSnapshot> listener : listeners) {
      listener.accept(snapshot);
    }
  }

  /** The latest published snapshot. */
  public Optional<HealthSnapshot> latest() {
    return Optional.ofNullable(latest.get());
  }

  /** How many streams are subscribed now. */
  public int subscriberCount() {
    return listeners.size();
  }

  @Override
  public Subscription subscribe(Consumer<HealthSnapshot> listener) {
    Objects.requireNonNull(listener, "listener");
    listeners.add(listener);
    HealthSnapshot current = latest.get();
    if (current != null) {
      listener.accept(current);
    }
    return () -> listeners.remove(listener);
  }
}
