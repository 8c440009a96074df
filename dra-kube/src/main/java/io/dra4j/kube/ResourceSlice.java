package io.dra4j.kube;

import com.fasterxml.jackson.annotation.JsonAnyGetter;
import com.fasterxml.jackson.annotation.JsonAnySetter;
import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;

/** A resource.k8s.io/v1 ResourceSlice (cluster-scoped; no status). */
@JsonInclude(JsonInclude.Include.NON_EMPTY)
public record ResourceSlice(
    String apiVersion,
    String kind,
    ObjectMeta metadata,
    ResourceSliceSpec spec,
    @JsonAnySetter @JsonAnyGetter Map<String, Object> unknownFields)
    implements KubeObject {

  public static final ResourceType<ResourceSlice> TYPE =
      new ResourceType<>(
          "resource.k8s.io", "v1", "resourceslices", "ResourceSlice", false, ResourceSlice.class);

  @JsonCreator
  public ResourceSlice(
      @JsonProperty("apiVersion") String apiVersion,
      @JsonProperty("kind") String kind,
      @JsonProperty("metadata") ObjectMeta metadata,
      @JsonProperty("spec") ResourceSliceSpec spec,
      @JsonAnySetter Map<String, Object> unknownFields) {
    this.apiVersion = apiVersion == null ? TYPE.apiVersion() : apiVersion;
    this.kind = kind == null ? TYPE.kind() : kind;
    this.metadata = Objects.requireNonNull(metadata, "metadata");
    this.spec = Objects.requireNonNull(spec, "spec");
    this.unknownFields =
        unknownFields == null
            ? Map.of()
            : java.util.Collections.unmodifiableMap(new TreeMap<>(unknownFields));
  }

  public static ResourceSlice of(ObjectMeta metadata, ResourceSliceSpec spec) {
    return new ResourceSlice(TYPE.apiVersion(), TYPE.kind(), metadata, spec, Map.of());
  }

  public ResourceSlice withMetadata(ObjectMeta value) {
    return new ResourceSlice(apiVersion, kind, value, spec, unknownFields);
  }

  public ResourceSlice withSpec(ResourceSliceSpec value) {
    return new ResourceSlice(apiVersion, kind, metadata, value, unknownFields);
  }
}
