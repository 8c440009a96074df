package io.dra4j.kube;

import com.fasterxml.jackson.annotation.JsonAnyGetter;
import com.fasterxml.jackson.annotation.JsonAnySetter;
import com.fasterxml.jackson.annotation.JsonInclude;
import io.dra4j.api.device.Quantity;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * A core/v1 Pod, the part DRA cares about: containers with their resource requests and claim
 * references, the pod's claims, the node, and the claim status fields. Everything else is kept in
 * the {@code unknownFields} of each level.
 *
 * @param apiVersion {@code v1}
 * @param kind {@code Pod}
 * @param metadata the metadata
 * @param spec the spec
 * @param status the status
 * @param unknownFields every other field
 */
@OmitEmpty
public record Pod(
    String apiVersion,
    String kind,
    ObjectMeta metadata,
    Spec spec,
    Status status,
    @JsonAnySetter @JsonAnyGetter Map<String, Object> unknownFields)
    implements KubeObject {

  public static final ResourceType<Pod> TYPE =
      new ResourceType<>("", "v1", "pods", "Pod", true, Pod.class);

  public Pod {
    apiVersion = apiVersion == null ? TYPE.apiVersion() : apiVersion;
    kind = kind == null ? TYPE.kind() : kind;
    metadata = Objects.requireNonNull(metadata, "metadata");
    spec = spec == null ? new Spec(null, null, null, null, Optional.empty(), null) : spec;
    status = status == null ? new Status(null, null, null) : status;
    unknownFields = Norm.unknown(unknownFields);
  }

  public static Pod of(ObjectMeta metadata, Spec spec) {
    return new Pod(null, null, metadata, spec, null, null);
  }

  public Pod withSpec(Spec value) {
    return new Pod(apiVersion, kind, metadata, value, status, unknownFields);
  }

  public Pod withStatus(Status value) {
    return new Pod(apiVersion, kind, metadata, spec, value, unknownFields);
  }

  /**
   * {@code PodSpec}, the DRA part.
   *
   * @param containers the containers
   * @param initContainers init containers (extended-resource mappings cover them too)
   * @param resourceClaims the pod's claims, referenced by containers by name
   * @param nodeName the node the pod is bound to; empty before scheduling
   * @param schedulingGroup the PodGroup the pod belongs to (gate GenericWorkload, 1.36+): a claim
   *     reserved for that PodGroup may be used by the pod (DRAWorkloadResourceClaims)
   * @param unknownFields every other field
   */
  @OmitEmpty
  public record Spec(
      List<Container> containers,
      List<Container> initContainers,
      List<PodResourceClaim> resourceClaims,
      String nodeName,
      Optional<SchedulingGroup> schedulingGroup,
      @JsonAnySetter @JsonAnyGetter Map<String, Object> unknownFields) {
    public Spec {
      containers = Norm.list(containers);
      initContainers = Norm.list(initContainers);
      resourceClaims = Norm.list(resourceClaims);
      nodeName = Norm.str(nodeName);
      schedulingGroup = Norm.opt(schedulingGroup);
      unknownFields = Norm.unknown(unknownFields);
    }

    public static Spec of(List<Container> containers, List<PodResourceClaim> resourceClaims) {
      return new Spec(containers, null, resourceClaims, null, Optional.empty(), null);
    }

    public Spec withNodeName(String value) {
      return new Spec(
          containers, initContainers, resourceClaims, value, schedulingGroup, unknownFields);
    }

    public Spec withSchedulingGroup(SchedulingGroup value) {
      return new Spec(
          containers, initContainers, resourceClaims, nodeName, Optional.of(value), unknownFields);
    }

    /** The name of the pod's PodGroup; empty when it belongs to none. */
    public Optional<String> podGroupName() {
      return schedulingGroup.flatMap(SchedulingGroup::podGroupName);
    }
  }

  /**
   * {@code PodSchedulingGroup}: the runtime scheduling group a pod belongs to (a union; 1.37 knows
   * one member).
   *
   * @param podGroupName the name of a {@code scheduling.k8s.io} PodGroup in the pod's namespace
   * @param unknownFields members of newer API versions
   */
  @OmitEmpty
  public record SchedulingGroup(
      Optional<String> podGroupName,
      @JsonAnySetter @JsonAnyGetter Map<String, Object> unknownFields) {
    public SchedulingGroup {
      podGroupName = Norm.opt(podGroupName);
      unknownFields = Norm.unknown(unknownFields);
    }

    public static SchedulingGroup podGroup(String name) {
      return new SchedulingGroup(Optional.of(Objects.requireNonNull(name, "name")), null);
    }
  }

  /**
   * A container, the DRA part.
   *
   * @param name unique in the pod
   * @param resources requests, limits and claim references
   * @param unknownFields image, command, everything else
   */
  @OmitEmpty
  public record Container(
      @JsonInclude(JsonInclude.Include.ALWAYS) String name,
      Resources resources,
      @JsonAnySetter @JsonAnyGetter Map<String, Object> unknownFields) {
    public Container {
      name = Objects.requireNonNull(name, "container name");
      resources = resources == null ? new Resources(null, null, null, null) : resources;
      unknownFields = Norm.unknown(unknownFields);
    }

    public static Container of(String name, Resources resources) {
      return new Container(name, resources, null);
    }
  }

  /**
   * {@code ResourceRequirements}.
   *
   * @param requests resource name to amount, including extended resources
   * @param limits resource name to amount
   * @param claims the pod claims (and requests in them) this container uses
   * @param unknownFields fields of newer API versions
   */
  @OmitEmpty
  public record Resources(
      Map<String, Quantity> requests,
      Map<String, Quantity> limits,
      List<ContainerClaim> claims,
      @JsonAnySetter @JsonAnyGetter Map<String, Object> unknownFields) {
    public Resources {
      requests = Norm.map(requests);
      limits = Norm.map(limits);
      claims = Norm.list(claims);
      unknownFields = Norm.unknown(unknownFields);
    }

    public static Resources of(
        Map<String, Quantity> requests, Map<String, Quantity> limits, List<ContainerClaim> claims) {
      return new Resources(requests, limits, claims, null);
    }
  }

  /**
   * A container's reference to a pod claim ({@code resources.claims[]}).
   *
   * @param name the name of an entry in {@code spec.resourceClaims}
   * @param request one request of that claim; empty for the whole claim
   * @param unknownFields fields of newer API versions
   */
  @OmitEmpty
  public record ContainerClaim(
      String name,
      String request,
      @JsonAnySetter @JsonAnyGetter Map<String, Object> unknownFields) {
    public ContainerClaim {
      name = Objects.requireNonNull(name, "claim name");
      request = Norm.str(request);
      unknownFields = Norm.unknown(unknownFields);
    }

    public static ContainerClaim of(String name) {
      return new ContainerClaim(name, null, null);
    }
  }

  /**
   * An entry of {@code spec.resourceClaims}: exactly one of claim name and template name.
   *
   * @param name the name containers use
   * @param resourceClaimName an existing claim in the pod's namespace
   * @param resourceClaimTemplateName a template from which a claim is generated per pod
   * @param unknownFields fields of newer API versions
   */
  @OmitEmpty
  public record PodResourceClaim(
      String name,
      Optional<String> resourceClaimName,
      Optional<String> resourceClaimTemplateName,
      @JsonAnySetter @JsonAnyGetter Map<String, Object> unknownFields) {
    public PodResourceClaim {
      name = Objects.requireNonNull(name, "pod claim name");
      resourceClaimName = Norm.opt(resourceClaimName);
      resourceClaimTemplateName = Norm.opt(resourceClaimTemplateName);
      unknownFields = Norm.unknown(unknownFields);
    }

    public static PodResourceClaim claim(String name, String resourceClaimName) {
      return new PodResourceClaim(name, Optional.of(resourceClaimName), Optional.empty(), null);
    }

    public static PodResourceClaim template(String name, String templateName) {
      return new PodResourceClaim(name, Optional.empty(), Optional.of(templateName), null);
    }
  }

  /**
   * {@code PodStatus}, the DRA part.
   *
   * @param resourceClaimStatuses the generated claim names of template claims
   * @param extendedResourceClaimStatus the scheduler's claim for DRA-backed extended resources
   * @param unknownFields phase, conditions, everything else
   */
  @OmitEmpty
  public record Status(
      List<ClaimStatus> resourceClaimStatuses,
      Optional<ExtendedResourceClaimStatus> extendedResourceClaimStatus,
      @JsonAnySetter @JsonAnyGetter Map<String, Object> unknownFields) {
    public Status {
      resourceClaimStatuses = Norm.list(resourceClaimStatuses);
      extendedResourceClaimStatus = Norm.opt(extendedResourceClaimStatus);
      unknownFields = Norm.unknown(unknownFields);
    }

    public Status withExtendedResourceClaimStatus(ExtendedResourceClaimStatus value) {
      return new Status(resourceClaimStatuses, Optional.of(value), unknownFields);
    }
  }

  /**
   * {@code PodResourceClaimStatus}.
   *
   * @param name the pod claim name
   * @param resourceClaimName the generated claim; empty when none was needed
   * @param unknownFields fields of newer API versions
   */
  @OmitEmpty
  public record ClaimStatus(
      String name,
      Optional<String> resourceClaimName,
      @JsonAnySetter @JsonAnyGetter Map<String, Object> unknownFields) {
    public ClaimStatus {
      name = Objects.requireNonNull(name, "pod claim name");
      resourceClaimName = Norm.opt(resourceClaimName);
      unknownFields = Norm.unknown(unknownFields);
    }
  }

  /**
   * {@code PodExtendedResourceClaimStatus} (KEP-5004). Field names follow the Go types ({@code
   * requestMappings}, {@code resourceName}); the KEP text says {@code requestMapping} and {@code
   * extendedResourceName}, which never shipped.
   *
   * @param resourceClaimName the claim the scheduler created for the pod
   * @param requestMappings which request of that claim serves which container's resource
   * @param unknownFields fields of newer API versions
   */
  @OmitEmpty
  public record ExtendedResourceClaimStatus(
      @JsonInclude(JsonInclude.Include.ALWAYS) String resourceClaimName,
      @JsonInclude(JsonInclude.Include.ALWAYS) List<ExtendedResourceRequest> requestMappings,
      @JsonAnySetter @JsonAnyGetter Map<String, Object> unknownFields) {
    public ExtendedResourceClaimStatus {
      resourceClaimName = Norm.str(resourceClaimName);
      requestMappings = Norm.list(requestMappings);
      unknownFields = Norm.unknown(unknownFields);
    }

    public static ExtendedResourceClaimStatus of(
        String resourceClaimName, List<ExtendedResourceRequest> requestMappings) {
      return new ExtendedResourceClaimStatus(resourceClaimName, requestMappings, null);
    }
  }

  /**
   * {@code ContainerExtendedResourceRequest}.
   *
   * @param containerName the container (init or regular)
   * @param resourceName the extended resource name in the container's requests
   * @param requestName the request in the scheduler's claim, e.g. {@code container-0-request-1}
   * @param unknownFields fields of newer API versions
   */
  @OmitEmpty
  public record ExtendedResourceRequest(
      @JsonInclude(JsonInclude.Include.ALWAYS) String containerName,
      @JsonInclude(JsonInclude.Include.ALWAYS) String resourceName,
      @JsonInclude(JsonInclude.Include.ALWAYS) String requestName,
      @JsonAnySetter @JsonAnyGetter Map<String, Object> unknownFields) {
    public ExtendedResourceRequest {
      containerName = Norm.str(containerName);
      resourceName = Norm.str(resourceName);
      requestName = Norm.str(requestName);
      unknownFields = Norm.unknown(unknownFields);
    }

    public static ExtendedResourceRequest of(
        String containerName, String resourceName, String requestName) {
      return new ExtendedResourceRequest(containerName, resourceName, requestName, null);
    }
  }
}
