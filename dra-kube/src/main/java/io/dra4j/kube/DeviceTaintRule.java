package io.dra4j.kube;

import com.fasterxml.jackson.annotation.JsonAnyGetter;
import com.fasterxml.jackson.annotation.JsonAnySetter;
import io.dra4j.api.device.DeviceTaint;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * A DeviceTaintRule (cluster-scoped, with {@code status}): an admin's taint on devices chosen by
 * driver, pool and device name. {@code resource.k8s.io/v1} from Kubernetes 1.37 ({@link #TYPE}),
 * v1beta2 in 1.36 and v1alpha3 before ({@link #OLDER_TYPES}, same shape for these fields).
 *
 * @param apiVersion the version it was read in
 * @param kind {@code DeviceTaintRule}
 * @param metadata the metadata
 * @param spec selector and taint
 * @param status the eviction controller's conditions
 * @param unknownFields fields of newer API versions
 */
@OmitEmpty
public record DeviceTaintRule(
    String apiVersion,
    String kind,
    ObjectMeta metadata,
    Spec spec,
    Status status,
    @JsonAnySetter @JsonAnyGetter Map<String, Object> unknownFields)
    implements KubeObject {

  public static final ResourceType<DeviceTaintRule> TYPE = type("v1");

  /** The versions before 1.37, newest first: where a 1.36 or 1.35 API server serves the rules. */
  public static final List<ResourceType<DeviceTaintRule>> OLDER_TYPES =
      List.of(type("v1beta2"), type("v1alpha3"));

  /**
   * The condition type the eviction controller maintains; for an effect-None rule its message is
   * the dry run ("N published devices selected. … P pods would be evicted …").
   */
  public static final String EVICTION_IN_PROGRESS = "EvictionInProgress";

  private static ResourceType<DeviceTaintRule> type(String version) {
    return new ResourceType<>(
        "resource.k8s.io",
        version,
        "devicetaintrules",
        "DeviceTaintRule",
        false,
        DeviceTaintRule.class);
  }

  public DeviceTaintRule {
    apiVersion = apiVersion == null ? TYPE.apiVersion() : apiVersion;
    kind = kind == null ? TYPE.kind() : kind;
    metadata = Objects.requireNonNull(metadata, "metadata");
    spec = Objects.requireNonNull(spec, "spec");
    status = status == null ? new Status(null, null) : status;
    unknownFields = Norm.unknown(unknownFields);
  }

  public static DeviceTaintRule of(ObjectMeta metadata, Spec spec) {
    return new DeviceTaintRule(null, null, metadata, spec, null, null);
  }

  /**
   * {@code DeviceTaintRuleSpec}.
   *
   * @param deviceSelector which devices; absent selects none, an empty one selects all
   * @param taint the taint added to every selected device
   * @param unknownFields fields of other API versions (v1alpha3's class and CEL selectors)
   */
  @OmitEmpty
  public record Spec(
      Optional<Selector> deviceSelector,
      DeviceTaint taint,
      @JsonAnySetter @JsonAnyGetter Map<String, Object> unknownFields) {
    public Spec {
      deviceSelector = Norm.opt(deviceSelector);
      taint = Objects.requireNonNull(taint, "taint");
      unknownFields = Norm.unknown(unknownFields);
    }

    public static Spec of(Selector selector, DeviceTaint taint) {
      return new Spec(Optional.of(selector), taint, null);
    }
  }

  /**
   * {@code DeviceTaintSelector}: each field set narrows the choice.
   *
   * @param driver the driver name
   * @param pool the pool name
   * @param device the device name
   * @param unknownFields fields of other API versions
   */
  @OmitEmpty
  public record Selector(
      Optional<String> driver,
      Optional<String> pool,
      Optional<String> device,
      @JsonAnySetter @JsonAnyGetter Map<String, Object> unknownFields) {
    public Selector {
      driver = Norm.opt(driver);
      pool = Norm.opt(pool);
      device = Norm.opt(device);
      unknownFields = Norm.unknown(unknownFields);
    }

    public static Selector of(
        Optional<String> driver, Optional<String> pool, Optional<String> device) {
      return new Selector(driver, pool, device, null);
    }

    /** Whether this selector picks the device. */
    public boolean selects(String driverName, String poolName, String deviceName) {
      return driver.map(driverName::equals).orElse(true)
          && pool.map(poolName::equals).orElse(true)
          && device.map(deviceName::equals).orElse(true);
    }
  }

  /**
   * {@code DeviceTaintRuleStatus}.
   *
   * @param conditions at most 8; see {@link #EVICTION_IN_PROGRESS}
   * @param unknownFields fields of newer API versions
   */
  @OmitEmpty
  public record Status(
      List<Condition> conditions, @JsonAnySetter @JsonAnyGetter Map<String, Object> unknownFields) {
    public Status {
      conditions = Norm.list(conditions);
      unknownFields = Norm.unknown(unknownFields);
    }
  }
}
