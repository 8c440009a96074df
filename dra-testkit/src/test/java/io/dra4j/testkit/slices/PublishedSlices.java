package io.dra4j.testkit.slices;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.dra4j.api.device.CounterSet;
import io.dra4j.api.device.Device;
import io.dra4j.api.provider.Pool;
import io.dra4j.api.provider.PoolScope;
import io.dra4j.runtime.kube.OwnerReference;
import io.dra4j.runtime.kube.ResourceSlice;
import io.dra4j.runtime.slices.Limits;
import io.dra4j.runtime.slices.PoolValidation;
import io.dra4j.runtime.slices.PoolValidator;
import io.dra4j.runtime.slices.SliceNames;
import io.dra4j.testkit.apiserver.FakeApiServer;
import io.dra4j.testkit.schema.OpenApiSchemas;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.stream.Collectors;

/**
 * Reads the slices a publisher left on the fake API server and checks every rule a consumer relies
 * on: the OpenAPI schema, the API server's limits, and the pool-level consistency the scheduler
 * needs (one generation, a matching slice count, counters apart, index-ordered names).
 */
final class PublishedSlices {
  static final String SCHEMA = "io.k8s.api.resource.v1.ResourceSlice";

  private final FakeApiServer server;
  private final String driver;

  PublishedSlices(FakeApiServer server, String driver) {
    this.server = server;
    this.driver = driver;
  }

  /** All slices of the driver, by pool, each pool's slices in name order. */
  Map<String, List<ResourceSlice>> byPool() {
    Map<String, List<ResourceSlice>> out = new TreeMap<>();
    for (ResourceSlice s : server.objects(ResourceSlice.TYPE)) {
      if (s.spec().driver().equals(driver)) {
        out.computeIfAbsent(s.spec().pool().name(), k -> new ArrayList<>()).add(s);
      }
    }
    out.values().forEach(l -> l.sort(Comparator.comparing(s -> s.metadata().name())));
    return out;
  }

  /** One pool's slices in name order (empty if none). */
  List<ResourceSlice> pool(String name) {
    return byPool().getOrDefault(name, List.of());
  }

  /** The pool's devices in the scheduler's order (slice name order, then device order). */
  List<Device> devices(String pool) {
    return pool(pool).stream().flatMap(s -> s.spec().devices().stream()).toList();
  }

  /** The pool's generation; fails unless all its slices agree. */
  long generation(String pool) {
    Set<Long> g =
        pool(pool).stream().map(s -> s.spec().pool().generation()).collect(Collectors.toSet());
    assertThat(g).as("generations of pool %s", pool).hasSize(1);
    return g.iterator().next();
  }

  /** Slice name to resourceVersion, to see which slices were written. */
  Map<String, String> versions(String pool) {
    Map<String, String> out = new TreeMap<>();
    for (ResourceSlice s : pool(pool)) {
      out.put(s.metadata().name(), s.metadata().resourceVersion());
    }
    return out;
  }

  /**
   * Checks every slice of the driver.
   *
   * @param node the publisher's node, for owner references; empty for a cluster-wide publisher
   * @param nodeUid the node's uid
   */
  void assertValid(Optional<String> node, String nodeUid) {
    OpenApiSchemas schemas = OpenApiSchemas.resourceV1();
    for (Map.Entry<String, List<ResourceSlice>> e : byPool().entrySet()) {
      String pool = e.getKey();
      List<ResourceSlice> slices = e.getValue();
      int n = slices.size();
      Set<Integer> indices = new HashSet<>();
      List<Device> devices = new ArrayList<>();
      List<CounterSet> counterSets = new ArrayList<>();
      for (ResourceSlice s : slices) {
        String name = s.metadata().name();
        JsonNode raw = server.raw(ResourceSlice.TYPE, "", name).orElseThrow();
        schemas.assertValid(SCHEMA, raw);

        assertThat(s.spec().pool().resourceSliceCount())
            .as("resourceSliceCount of %s", name)
            .isEqualTo(n);
        assertThat(SliceNames.parseIndex(name, n)).as("index prefix of %s", name).isPresent();
        assertThat(indices.add(SliceNames.parseIndex(name, n).getAsInt()))
            .as("index of %s is unique in pool %s", name, pool)
            .isTrue();

        List<Device> ds = s.spec().devices();
        boolean advanced = ds.stream().anyMatch(Device::usesAdvancedFeatures);
        assertThat(ds.size())
            .as("devices in %s", name)
            .isLessThanOrEqualTo(
                advanced
                    ? Limits.MAX_DEVICES_PER_SLICE_WITH_ADVANCED_FEATURES
                    : Limits.MAX_DEVICES_PER_SLICE);
        assertThat(s.spec().sharedCounters().size())
            .as("counter sets in %s", name)
            .isLessThanOrEqualTo(Limits.MAX_COUNTER_SETS_PER_SLICE);
        if (!s.spec().sharedCounters().isEmpty()) {
          assertThat(ds).as("a slice with counter sets has no devices: %s", name).isEmpty();
        }
        if (s.spec().nodeName().isPresent()) {
          assertThat(s.spec().nodeName()).isEqualTo(node);
          assertThat(s.metadata().ownerReferences())
              .containsExactly(OwnerReference.node(node.orElseThrow(), nodeUid));
        } else {
          assertThat(s.metadata().ownerReferences()).isEmpty();
        }
        devices.addAll(ds);
        counterSets.addAll(s.spec().sharedCounters());
      }
      assertThat(indices).as("indices of pool %s", pool).hasSize(n);
      generation(pool);

      ResourceSlice first = slices.get(0);
      PoolScope scope =
          first.spec().nodeName().isPresent()
              ? PoolScope.node()
              : first.spec().allNodes()
                  ? PoolScope.allNodes()
                  : first.spec().perDeviceNodeSelection()
                      ? PoolScope.perDevice()
                      : PoolScope.nodeSelector(first.spec().nodeSelector().orElseThrow());
      PoolValidation v =
          PoolValidator.validate(driver, new Pool(pool, devices, counterSets, scope));
      assertThat(v.errors()).as("the published pool %s, validated as a whole", pool).isEmpty();
    }
  }
}
