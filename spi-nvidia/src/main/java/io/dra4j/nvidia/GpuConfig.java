package io.dra4j.nvidia;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import io.dra4j.api.provider.ConfigType;
import java.util.List;

/**
 * Opaque configuration for NVIDIA GPUs and MIG devices in claims and DeviceClasses:
 *
 * <pre>{@code
 * apiVersion: gpu.nvidia.com/v1alpha1
 * kind: GpuConfig
 * sharing:
 *   strategy: Exclusive
 * }</pre>
 *
 * <p>Only {@code Exclusive} sharing is supported for now: the device belongs to the claim's pods
 * alone. {@code TimeSlicing} and {@code MPS} are reserved names and are rejected by {@link
 * #validate()} until they are implemented. Omitted fields take their defaults; unknown fields are
 * rejected by the runtime's strict decoding.
 *
 * @param sharing how the claim's containers share the device
 */
@JsonIgnoreProperties({"apiVersion", "kind"})
public record GpuConfig(Sharing sharing) {

  /** The {@code apiVersion} of this config. */
  public static final String API_VERSION = "gpu.nvidia.com/v1alpha1";

  /** The {@code kind} of this config. */
  public static final String KIND = "GpuConfig";

  /** What a provider registers in {@link io.dra4j.api.provider.TypedConfig#configTypes()}. */
  public static final ConfigType<GpuConfig> TYPE =
      ConfigType.of(API_VERSION, KIND, GpuConfig.class);

  public GpuConfig {
    sharing = sharing == null ? Sharing.exclusive() : sharing;
  }

  /** The default: exclusive use. */
  public static GpuConfig exclusive() {
    return new GpuConfig(Sharing.exclusive());
  }

  /**
   * Checks what strict decoding cannot.
   *
   * @throws IllegalArgumentException naming the field and the rule
   */
  public void validate() {
    sharing.validate();
  }

  /**
   * How a device is shared.
   *
   * @param strategy {@code Exclusive} (default); {@code TimeSlicing} and {@code MPS} are not
   *     supported yet
   */
  public record Sharing(String strategy) {

    public static final String EXCLUSIVE = "Exclusive";
    public static final String TIME_SLICING = "TimeSlicing";
    public static final String MPS = "MPS";

    /** The strategy names this config knows, supported or not. */
    public static final List<String> STRATEGIES = List.of(EXCLUSIVE, TIME_SLICING, MPS);

    public Sharing {
      strategy = strategy == null ? EXCLUSIVE : strategy;
    }

    public static Sharing exclusive() {
      return new Sharing(EXCLUSIVE);
    }

    void validate() {
      if (strategy.equals(EXCLUSIVE)) {
        return;
      }
      if (STRATEGIES.contains(strategy)) {
        throw new IllegalArgumentException(
            "field \"sharing.strategy\": \""
                + strategy
                + "\" is not supported yet; only \""
                + EXCLUSIVE
                + "\" is");
      }
      throw new IllegalArgumentException(
          "field \"sharing.strategy\": \""
              + strategy
              + "\" is not one of "
              + String.join(", ", STRATEGIES)
              + " (only \""
              + EXCLUSIVE
              + "\" is supported yet)");
    }
  }
}
