package io.dra4j.runtime.internal.claims;

import com.code_intelligence.jazzer.junit.FuzzTest;
import com.fasterxml.jackson.databind.JsonNode;
import io.dra4j.api.claim.AllocatedDevice;
import io.dra4j.api.claim.ClaimRef;
import io.dra4j.api.provider.ConfigType;
import io.dra4j.api.provider.TypedConfig;
import io.dra4j.kube.DeviceAllocationConfiguration;
import io.dra4j.kube.KubeJson;
import io.dra4j.kube.OpaqueDeviceConfiguration;
import java.io.IOException;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Opaque device configs as a claim or class carries them: any JSON object either decodes strictly
 * into one of the provider's types or fails the claim with a ClaimException, never another
 * exception. The types cover what vendors declare: strings, numbers, booleans, enums, lists, maps,
 * nested records, optionals.
 */
class OpaqueConfigFuzzTest {
  static final String DRIVER = "gpu.example.com";
  static final String API_VERSION = "gpu.example.com/v1";

  enum Mode {
    EXCLUSIVE,
    SHARED
  }

  record Limits(int memoryMi, Optional<Double> share) {}

  record GpuConfig(
      String name,
      int replicas,
      Long budget,
      boolean enabled,
      Mode mode,
      List<String> tags,
      Map<String, Integer> weights,
      Limits limits,
      Optional<String> profile) {}

  record Sharing(Mode strategy, List<Limits> slices) {}

  static final TypedConfig PROVIDER =
      new TypedConfig() {
        @Override
        public List<ConfigType<?>> configTypes() {
          return List.of(
              ConfigType.of(API_VERSION, "GpuConfig", GpuConfig.class),
              ConfigType.of(API_VERSION, "Sharing", Sharing.class));
        }

        @Override
        public void validate(Object config) {
          if (config instanceof GpuConfig g && g.replicas() < 0) {
            throw new IllegalArgumentException("replicas: must not be negative");
          }
        }
      };

  static final OpaqueConfigs CONFIGS = new OpaqueConfigs(DRIVER, Optional.of(PROVIDER));
  static final ClaimRef CLAIM = ClaimRef.of("ns", "claim", "0000-1111");
  static final List<AllocatedDevice> DEVICES =
      List.of(AllocatedDevice.of("gpu", "node-1", "gpu-0"));

  @FuzzTest
  void decode(byte[] input) {
    JsonNode parameters;
    try {
      parameters = KubeJson.mapper().readTree(input);
    } catch (IOException | NumberFormatException e) {
      // The API server only stores JSON. Jackson throws a bare NumberFormatException for a number
      // it refuses (an exponent of 60 digits, found by fuzzing); HttpKubeClient.decode catches
      // both.
      return;
    }
    if (parameters == null) {
      return;
    }
    DeviceAllocationConfiguration config =
        new DeviceAllocationConfiguration(
            DeviceAllocationConfiguration.FROM_CLAIM,
            List.of(),
            Optional.of(new OpaqueDeviceConfiguration(DRIVER, parameters, Map.of())),
            Map.of());
    try {
      CONFIGS.apply(CLAIM, DEVICES, List.of(config));
    } catch (ClaimException e) {
      // the claim fails with the reason
    }
  }
}
