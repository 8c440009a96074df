package io.dra4j.kube;

import java.util.Optional;

/** Receives the events of one watch stream, on the client's thread. */
public interface WatchHandler<T> {

  void onEvent(WatchEvent<T> event);

  /**
   * The stream ended: normally (server timeout, {@code Optional.empty()}), or with an error. A
   * {@link KubeException#isGone()} error means the resourceVersion is too old: list again.
   */
  void onClose(Optional<KubeException> error);
}
