package io.dra4j.kube;

/**
 * One event of a watch stream.
 *
 * @param type ADDED, MODIFIED, DELETED or BOOKMARK
 * @param object the object; for BOOKMARK only its resourceVersion is meaningful, and it is null
 *     when the bookmark's bare metadata does not make a valid object (e.g. a ResourceSlice, whose
 *     spec is required): use {@code resourceVersion} for bookmarks
 * @param resourceVersion the object's resourceVersion: where a resumed watch continues
 */
public record WatchEvent<T>(Type type, T object, String resourceVersion) {

  /** Event types. ERROR events are turned into {@link WatchHandler#onClose}. */
  public enum Type {
    ADDED,
    MODIFIED,
    DELETED,
    BOOKMARK
  }
}
