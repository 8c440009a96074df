package io.dra4j.kube;

import com.fasterxml.jackson.annotation.JsonAnyGetter;
import com.fasterxml.jackson.annotation.JsonAnySetter;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * A resource.k8s.io/v1 DeviceClass (cluster-scoped, no status). {@code metadata.creationTimestamp}
 * matters: among classes with the same extended resource name the later one wins.
 *
 * @param apiVersion {@code resource.k8s.io/v1}
 * @param kind {@code DeviceClass}
 * @param metadata the metadata
 * @param spec selectors, config, extended resource name
 * @param unknownFields fields of newer API versions
 */
@OmitEmpty
public record DeviceClass(
    String apiVersion,
    String kind,
    ObjectMeta metadata,
    Spec spec,
    @JsonAnySetter @JsonAnyGetter Map<String, Object> unknownFields)
    implements KubeObject {

  public static final ResourceType<DeviceClass> TYPE =
      new ResourceType<>(
          "resource.k8s.io", "v1", "deviceclasses", "DeviceClass", false, DeviceClass.class);

  /** Prefix of the implicit extended resource name of every class. */
  public static final String IMPLICIT_EXTENDED_RESOURCE_PREFIX =
      "deviceclass.resource.kubernetes.io/";

  public DeviceClass {
    apiVersion = apiVersion == null ? TYPE.apiVersion() : apiVersion;
    kind = kind == null ? TYPE.kind() : kind;
    metadata = Objects.requireNonNull(metadata, "metadata");
    spec = spec == null ? new Spec(null, null, null, null) : spec;
    unknownFields = Norm.unknown(unknownFields);
  }

  public static DeviceClass of(ObjectMeta metadata, Spec spec) {
    return new DeviceClass(null, null, metadata, spec, null);
  }

  /** {@code deviceclass.resource.kubernetes.io/<name>}, valid for every class. */
  public String implicitExtendedResourceName() {
    return IMPLICIT_EXTENDED_RESOURCE_PREFIX + metadata.name();
  }

  /**
   * {@code DeviceClassSpec}.
   *
   * @param selectors at most 32 CEL selectors
   * @param config at most 32, handed to drivers with source FromClass
   * @param extendedResourceName an explicit extended resource name backed by this class
   * @param unknownFields fields of newer API versions
   */
  @OmitEmpty
  public record Spec(
      List<DeviceSelector> selectors,
      List<Configuration> config,
      Optional<String> extendedResourceName,
      @JsonAnySetter @JsonAnyGetter Map<String, Object> unknownFields) {
    public Spec {
      selectors = Norm.list(selectors);
      config = Norm.list(config);
      extendedResourceName = Norm.opt(extendedResourceName);
      unknownFields = Norm.unknown(unknownFields);
    }

    public static Spec of(List<DeviceSelector> selectors) {
      return new Spec(selectors, null, null, null);
    }

    public Spec withExtendedResourceName(String value) {
      return new Spec(selectors, config, Optional.of(value), unknownFields);
    }

    public Spec withConfig(List<Configuration> value) {
      return new Spec(selectors, value, extendedResourceName, unknownFields);
    }
  }

  /**
   * {@code DeviceClassConfiguration}.
   *
   * @param opaque driver-specific parameters
   * @param unknownFields fields of newer API versions
   */
  @OmitEmpty
  public record Configuration(
      Optional<OpaqueDeviceConfiguration> opaque,
      @JsonAnySetter @JsonAnyGetter Map<String, Object> unknownFields) {
    public Configuration {
      opaque = Norm.opt(opaque);
      unknownFields = Norm.unknown(unknownFields);
    }

    public static Configuration opaque(OpaqueDeviceConfiguration value) {
      return new Configuration(Optional.of(value), null);
    }
  }
}
