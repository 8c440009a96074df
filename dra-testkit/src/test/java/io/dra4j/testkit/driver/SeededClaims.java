package io.dra4j.testkit.driver;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.dra4j.api.claim.ClaimRef;
import io.dra4j.kube.KubeJson;
import io.dra4j.kube.ResourceClaim;
import io.dra4j.testkit.apiserver.FakeApiServer;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** Allocated claims written as JSON, the way the scheduler leaves them in the API server. */
final class SeededClaims {
  private static final ObjectMapper JSON = KubeJson.configure(new ObjectMapper());

  private SeededClaims() {}

  /**
   * Seeds {@code ns/name} with {@code pool/device} of {@code driver} allocated for request {@code
   * gpu}, and the opaque parameters of a claim config unless null.
   */
  static ClaimRef allocated(
      FakeApiServer api,
      String driver,
      String name,
      String pool,
      String device,
      Object parameters) {
    Map<String, Object> devices = new LinkedHashMap<>();
    devices.put(
        "results",
        List.of(Map.of("request", "gpu", "driver", driver, "pool", pool, "device", device)));
    if (parameters != null) {
      devices.put(
          "config",
          List.of(
              Map.of(
                  "source",
                  "FromClaim",
                  "opaque",
                  Map.of("driver", driver, "parameters", parameters))));
    }
    return seed(api, name, Map.of("allocation", Map.of("devices", devices)));
  }

  /** Seeds {@code ns/name} with no allocation. */
  static ClaimRef pending(FakeApiServer api, String name) {
    return seed(api, name, Map.of());
  }

  private static ClaimRef seed(FakeApiServer api, String name, Map<String, Object> status) {
    Map<String, Object> claim =
        Map.of(
            "metadata",
            Map.of("namespace", "ns", "name", name),
            "spec",
            Map.of(),
            "status",
            status);
    ResourceClaim stored =
        api.put(ResourceClaim.TYPE, JSON.convertValue(claim, ResourceClaim.class));
    return ClaimRef.of("ns", name, stored.metadata().uid());
  }
}
