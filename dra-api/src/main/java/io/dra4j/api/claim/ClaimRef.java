package io.dra4j.api.claim;

import java.util.List;
import java.util.Objects;

/**
 * Identifies a ResourceClaim. The UID matters: a claim deleted and re-created under the same name
 * is a different claim.
 */
public record ClaimRef(String namespace, String name, String uid) {
  public ClaimRef {
    Objects.requireNonNull(namespace, "claim namespace");
    Objects.requireNonNull(name, "claim name");
    Objects.requireNonNull(uid, "claim uid");
  }

  /** {@code namespace/name (uid)}, the form used in every log line and error. */
  @Override
  public String toString() {
    return namespace + "/" + name + " (" + uid + ")";
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
}
