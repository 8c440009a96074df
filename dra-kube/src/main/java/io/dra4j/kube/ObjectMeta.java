package io.dra4j.kube;

import com.fasterxml.jackson.annotation.JsonAnyGetter;
import com.fasterxml.jackson.annotation.JsonAnySetter;
import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * The metadata fields a driver reads or writes. Empty strings mean "not set"; fields this record
 * does not name (managedFields, …) are kept in {@code unknownFields}.
 */
@JsonInclude(JsonInclude.Include.NON_EMPTY)
public record ObjectMeta(
    String name,
    String generateName,
    String namespace,
    String uid,
    String resourceVersion,
    @JsonInclude(JsonInclude.Include.NON_DEFAULT) long generation,
    String creationTimestamp,
    Optional<String> deletionTimestamp,
    Map<String, String> labels,
    Map<String, String> annotations,
    List<OwnerReference> ownerReferences,
    List<String> finalizers,
    @JsonAnySetter @JsonAnyGetter Map<String, Object> unknownFields) {

  @JsonCreator
  public ObjectMeta(
      @JsonProperty("name") String name,
      @JsonProperty("generateName") String generateName,
      @JsonProperty("namespace") String namespace,
      @JsonProperty("uid") String uid,
      @JsonProperty("resourceVersion") String resourceVersion,
      @JsonProperty("generation") long generation,
      @JsonProperty("creationTimestamp") String creationTimestamp,
      @JsonProperty("deletionTimestamp") Optional<String> deletionTimestamp,
      @JsonProperty("labels") Map<String, String> labels,
      @JsonProperty("annotations") Map<String, String> annotations,
      @JsonProperty("ownerReferences") List<OwnerReference> ownerReferences,
      @JsonProperty("finalizers") List<String> finalizers,
      @JsonAnySetter Map<String, Object> unknownFields) {
    this.name = name == null ? "" : name;
    this.generateName = generateName == null ? "" : generateName;
    this.namespace = namespace == null ? "" : namespace;
    this.uid = uid == null ? "" : uid;
    this.resourceVersion = resourceVersion == null ? "" : resourceVersion;
    this.generation = generation;
    this.creationTimestamp = creationTimestamp == null ? "" : creationTimestamp;
    this.deletionTimestamp = deletionTimestamp == null ? Optional.empty() : deletionTimestamp;
    this.labels =
        labels == null ? Map.of() : java.util.Collections.unmodifiableMap(new TreeMap<>(labels));
    this.annotations =
        annotations == null
            ? Map.of()
            : java.util.Collections.unmodifiableMap(new TreeMap<>(annotations));
    this.ownerReferences = ownerReferences == null ? List.of() : List.copyOf(ownerReferences);
    this.finalizers = finalizers == null ? List.of() : List.copyOf(finalizers);
    this.unknownFields =
        unknownFields == null
            ? Map.of()
            : java.util.Collections.unmodifiableMap(new TreeMap<>(unknownFields));
  }

  /** Metadata with only a name (and namespace, empty for cluster-scoped objects). */
  public static ObjectMeta named(String namespace, String name) {
    return new ObjectMeta(
        name,
        "",
        namespace,
        "",
        "",
        0,
        "",
        Optional.empty(),
        Map.of(),
        Map.of(),
        List.of(),
        List.of(),
        Map.of());
  }

  /** Metadata for a create with a server-generated name suffix. */
  public static ObjectMeta generated(String namespace, String generateName) {
    return new ObjectMeta(
        "",
        generateName,
        namespace,
        "",
        "",
        0,
        "",
        Optional.empty(),
        Map.of(),
        Map.of(),
        List.of(),
        List.of(),
        Map.of());
  }

  public ObjectMeta withResourceVersion(String value) {
    return new ObjectMeta(
        name,
        generateName,
        namespace,
        uid,
        value,
        generation,
        creationTimestamp,
        deletionTimestamp,
        labels,
        annotations,
        ownerReferences,
        finalizers,
        unknownFields);
  }

  public ObjectMeta withLabels(Map<String, String> value) {
    return new ObjectMeta(
        name,
        generateName,
        namespace,
        uid,
        resourceVersion,
        generation,
        creationTimestamp,
        deletionTimestamp,
        value,
        annotations,
        ownerReferences,
        finalizers,
        unknownFields);
  }

  public ObjectMeta withAnnotations(Map<String, String> value) {
    return new ObjectMeta(
        name,
        generateName,
        namespace,
        uid,
        resourceVersion,
        generation,
        creationTimestamp,
        deletionTimestamp,
        labels,
        value,
        ownerReferences,
        finalizers,
        unknownFields);
  }

  public ObjectMeta withOwnerReferences(List<OwnerReference> value) {
    return new ObjectMeta(
        name,
        generateName,
        namespace,
        uid,
        resourceVersion,
        generation,
        creationTimestamp,
        deletionTimestamp,
        labels,
        annotations,
        value,
        finalizers,
        unknownFields);
  }
}
