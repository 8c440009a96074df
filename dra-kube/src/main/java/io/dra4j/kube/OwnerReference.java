package io.dra4j.kube;

import com.fasterxml.jackson.annotation.JsonAnyGetter;
import com.fasterxml.jackson.annotation.JsonAnySetter;
import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import java.util.Map;
import java.util.TreeMap;

/**
 * An owner of an object; ResourceSlices of a node-local driver are owned by the Node.
 *
 * @param unknownFields fields of newer API versions
 */
@JsonInclude(JsonInclude.Include.NON_DEFAULT)
public record OwnerReference(
    String apiVersion,
    String kind,
    String name,
    String uid,
    boolean controller,
    boolean blockOwnerDeletion,
    @JsonAnySetter @JsonAnyGetter Map<String, Object> unknownFields) {

  @JsonCreator
  public OwnerReference(
      @JsonProperty("apiVersion") String apiVersion,
      @JsonProperty("kind") String kind,
      @JsonProperty("name") String name,
      @JsonProperty("uid") String uid,
      @JsonProperty("controller") boolean controller,
      @JsonProperty("blockOwnerDeletion") boolean blockOwnerDeletion,
      @JsonAnySetter Map<String, Object> unknownFields) {
    this.apiVersion = apiVersion;
    this.kind = kind;
    this.name = name;
    this.uid = uid;
    this.controller = controller;
    this.blockOwnerDeletion = blockOwnerDeletion;
    this.unknownFields =
        unknownFields == null || unknownFields.isEmpty()
            ? Map.of()
            : java.util.Collections.unmodifiableMap(new TreeMap<>(unknownFields));
  }

  /** An owner reference without fields of newer API versions. */
  public OwnerReference(
      String apiVersion,
      String kind,
      String name,
      String uid,
      boolean controller,
      boolean blockOwnerDeletion) {
    this(apiVersion, kind, name, uid, controller, blockOwnerDeletion, Map.of());
  }

  /** The Node as controlling owner, as the Go helper sets it. */
  public static OwnerReference node(String name, String uid) {
    return new OwnerReference("v1", "Node", name, uid, true, false);
  }
}
