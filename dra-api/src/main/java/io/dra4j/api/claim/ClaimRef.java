package io.dra4j.api.claim;

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
}
