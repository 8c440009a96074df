package io.dra4j.api.claim;

import java.util.List;
import java.util.Objects;

/**
 * Identifies a ResourceClaim. The UID matters: a claim deleted and re-created under the same name
 * is a different claim.
 */
public final class ClaimRef {
  private final String namespace;
  private final String name;
  private final String uid;

  private ClaimRef(String namespace, String name, String uid) {
    this.namespace = Objects.requireNonNull(namespace, "claim namespace");
    this.name = Objects.requireNonNull(name, "claim name");
    this.uid = Objects.requireNonNull(uid, "claim uid");
  }

  public static ClaimRef of(String namespace, String name, String uid) {
    return new ClaimRef(namespace, name, uid);
  }

  public String namespace() {
    return namespace;
  }

  public String name() {
    return name;
  }

  public String uid() {
    return uid;
  }

  /**
   * A message about this claim without {@code "claim <this>: "} (or {@code ", "}) in front. The
   * claim is named once, where the message leaves (the kubelet's error, a log line that names it
   * anyway); a provider or an inner step that named it too would make the reader see it twice.
   */
  public String unprefixed(String message) {
    String named = "claim " + this;
    for (String separator : List.of(": ", ", ")) {
      if (message.startsWith(named + separator)) {
        return message.substring(named.length() + separator.length());
      }
    }
    return message;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof ClaimRef c
        && namespace.equals(c.namespace)
        && name.equals(c.name)
        && uid.equals(c.uid);
  }

  @Override
  public int hashCode() {
    return Objects.hash(namespace, name, uid);
  }

  /** {@code namespace/name (uid)}, the form used in every log line and error. */
  @Override
  public String toString() {
    return namespace + "/" + name + " (" + uid + ")";
  }
}
