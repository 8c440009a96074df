package io.dra4j.kube;

import com.fasterxml.jackson.annotation.JsonInclude;

/** An owner of an object; ResourceSlices of a node-local driver are owned by the Node. */
@JsonInclude(JsonInclude.Include.NON_DEFAULT)
public record OwnerReference(
    String apiVersion,
    String kind,
    String name,
    String uid,
    boolean controller,
    boolean blockOwnerDeletion) {

  /** The Node as controlling owner, as the Go helper sets it. */
  public static OwnerReference node(String name, String uid) {
    return new OwnerReference("v1", "Node", name, uid, true, false);
  }
}
