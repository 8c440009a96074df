package io.dra4j.kube;

/**
 * Options for list and watch. Empty strings mean "not set".
 *
 * @param labelSelector e.g. {@code app=x}
 * @param fieldSelector e.g. {@code spec.nodeName=node-1,spec.driver=gpu.example.com}
 * @param resourceVersion where a watch starts, or the list's consistency point
 * @param allowBookmarks ask the server for BOOKMARK events on watches
 * @param timeoutSeconds server-side timeout of a watch; 0 for the server's default
 */
public record ListOptions(
    String labelSelector,
    String fieldSelector,
    String resourceVersion,
    boolean allowBookmarks,
    int timeoutSeconds) {

  public static final ListOptions ALL = new ListOptions("", "", "", false, 0);

  public ListOptions {
    labelSelector = labelSelector == null ? "" : labelSelector;
    fieldSelector = fieldSelector == null ? "" : fieldSelector;
    resourceVersion = resourceVersion == null ? "" : resourceVersion;
  }

  public static ListOptions fields(String fieldSelector) {
    return new ListOptions("", fieldSelector, "", false, 0);
  }

  public static ListOptions labels(String labelSelector) {
    return new ListOptions(labelSelector, "", "", false, 0);
  }

  public ListOptions withResourceVersion(String value) {
    return new ListOptions(labelSelector, fieldSelector, value, allowBookmarks, timeoutSeconds);
  }

  public ListOptions withBookmarks() {
    return new ListOptions(labelSelector, fieldSelector, resourceVersion, true, timeoutSeconds);
  }
}
