package io.dra4j.runtime.extendedresource;

import io.dra4j.api.device.Device;
import io.dra4j.api.device.Quantity;
import io.dra4j.api.provider.Pool;
import io.dra4j.kube.DeviceClass;
import io.dra4j.kube.DeviceSelector;
import io.dra4j.kube.Node;
import io.dra4j.kube.ObjectMeta;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.IntStream;

/** Fixtures: classes, nodes and pools as the API server and a driver would have them. */
public final class Classes {
  public static final String DRIVER = "gpu.example.com";
  public static final String NODE = "node-1";
  public static final String T1 = "2026-03-01T10:00:00Z";
  public static final String T2 = "2026-03-01T10:05:00Z";

  private Classes() {}

  public static DeviceClass cls(
      String name, String created, Optional<String> explicit, String... cel) {
    ObjectMeta meta =
        new ObjectMeta(
            name,
            "",
            "",
            "uid-" + name,
            "1",
            1,
            created,
            Optional.empty(),
            Map.of(),
            Map.of(),
            List.of(),
            List.of(),
            Map.of());
    DeviceClass.Spec spec =
        DeviceClass.Spec.of(Arrays.stream(cel).map(DeviceSelector::cel).toList());
    return DeviceClass.of(meta, explicit.map(spec::withExtendedResourceName).orElse(spec));
  }

  public static DeviceClass ours(String name, String explicit) {
    return cls(name, T1, Optional.of(explicit), "device.driver == '" + DRIVER + "'");
  }

  public static Node node(Map<String, String> capacity, Map<String, String> allocatable) {
    return Node.of(
        ObjectMeta.named("", NODE), Node.Status.of(quantities(capacity), quantities(allocatable)));
  }

  public static Node node(String name, String value) {
    return node(Map.of(name, value), Map.of(name, value));
  }

  private static Map<String, Quantity> quantities(Map<String, String> m) {
    return m.entrySet().stream()
        .collect(
            java.util.stream.Collectors.toMap(
                Map.Entry::getKey, e -> Quantity.parse(e.getValue())));
  }

  /** gpu-0..n-1, gpu-i with attribute type=gpu, odd ones model=big. */
  public static List<Pool> pools(int n) {
    return List.of(
        Pool.of(
            NODE,
            IntStream.range(0, n)
                .mapToObj(
                    i ->
                        Device.builder("gpu-" + i)
                            .attribute("type", "gpu")
                            .attribute("model", i % 2 == 1 ? "big" : "small")
                            .build())
                .toList()));
  }
}
