package io.dra4j.kube;

/**
 * Receives an {@link Informer}'s cache changes, one at a time, in order. Callbacks run on the
 * informer's threads: keep them short (queue work elsewhere). An exception is logged and does not
 * stop the informer.
 */
public interface InformerHandler<T> {

  /** An object appeared (in the first list, after a re-list, or from the watch). */
  default void onAdd(T object) {}

  /** An object changed (its resourceVersion differs from the cached one). */
  default void onUpdate(T oldObject, T newObject) {}

  /** An object disappeared; {@code object} is its last known state. */
  default void onDelete(T object) {}

  /** The first list was applied: the cache is complete. Called once. */
  default void onSynced() {}
}
