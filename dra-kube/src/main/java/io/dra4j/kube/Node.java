package io.dra4j.kube;

import com.fasterxml.jackson.annotation.JsonAnyGetter;
import com.fasterxml.jackson.annotation.JsonAnySetter;
import io.dra4j.api.device.Quantity;
import java.util.Map;
import java.util.Objects;

/**
 * A core/v1 Node: its metadata (the UID owns node-local ResourceSlices) and the resources it
 * advertises. Everything else (spec, conditions, addresses…) is kept in {@code unknownFields}.
 *
 * @param apiVersion {@code v1}
 * @param kind {@code Node}
 * @param metadata the metadata
 * @param status capacity and allocatable
 * @param unknownFields every other field, kept so an update loses nothing
 */
@OmitEmpty
public record Node(
    String apiVersion,
    String kind,
    ObjectMeta metadata,
    Status status,
    @JsonAnySetter @JsonAnyGetter Map<String, Object> unknownFields)
    implements KubeObject {

  public static final ResourceType<Node> TYPE =
      new ResourceType<>("", "v1", "nodes", "Node", false, Node.class);

  public Node {
    apiVersion = apiVersion == null ? TYPE.apiVersion() : apiVersion;
    kind = kind == null ? TYPE.kind() : kind;
    metadata = Objects.requireNonNull(metadata, "metadata");
    status = status == null ? new Status(null, null, null) : status;
    unknownFields = Norm.unknown(unknownFields);
  }

  public static Node of(ObjectMeta metadata, Status status) {
    return new Node(null, null, metadata, status, null);
  }

  public Node withStatus(Status value) {
    return new Node(apiVersion, kind, metadata, value, unknownFields);
  }

  /**
   * {@code NodeStatus}, the resource part.
   *
   * @param capacity resource name to total (a device plugin's extended resources appear here)
   * @param allocatable resource name to what pods may use
   * @param unknownFields conditions, addresses, nodeInfo…
   */
  @OmitEmpty
  public record Status(
      Map<String, Quantity> capacity,
      Map<String, Quantity> allocatable,
      @JsonAnySetter @JsonAnyGetter Map<String, Object> unknownFields) {
    public Status {
      capacity = Norm.map(capacity);
      allocatable = Norm.map(allocatable);
      unknownFields = Norm.unknown(unknownFields);
    }

    public static Status of(Map<String, Quantity> capacity, Map<String, Quantity> allocatable) {
      return new Status(capacity, allocatable, null);
    }
  }
}
