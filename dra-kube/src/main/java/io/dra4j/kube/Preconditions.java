package io.dra4j.kube;

/**
 * Delete preconditions: the delete fails with 409 when the object's UID or resourceVersion differ.
 * Empty strings mean "no precondition".
 */
public record Preconditions(String uid, String resourceVersion) {
  public static final Preconditions NONE = new Preconditions("", "");

  public Preconditions {
    uid = uid == null ? "" : uid;
    resourceVersion = resourceVersion == null ? "" : resourceVersion;
  }
}
