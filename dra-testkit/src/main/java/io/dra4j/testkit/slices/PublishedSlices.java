package io.dra4j.testkit.slices;

import com.fasterxml.jackson.databind.JsonNode;
import io.dra4j.api.device.CounterSet;
import io.dra4j.api.device.Device;
import io.dra4j.api.provider.Pool;
import io.dra4j.api.provider.PoolScope;
import io.dra4j.kube.OwnerReference;
import io.dra4j.kube.ResourceSlice;
import io.dra4j.runtime.internal.slices.SliceNames;
import io.dra4j.testkit.apiserver.FakeApiServer;
import io.dra4j.testkit.schema.OpenApiSchemas;
import io.dra4j.validation.Limits;
import io.dra4j.validation.PoolValidation;
import io.dra4j.validation.PoolValidator;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.Set;
import java.util.TreeMap;
import java.util.stream.Collectors;

/**
 * Reads the ResourceSlices a driver left on the {@link FakeApiServer} and checks every rule a
 * consumer relies on: the official OpenAPI schema (on the stored JSON, so fields the models do not
 * know are judged too), the API server's limits, and the pool-level consistency the scheduler needs
 * (one generation, a matching slice count, counters apart, index-ordered names, owner references).
 * A vendor's tests call {@link #assertValid} after their driver published.
 */
public final class PublishedSlices {
  /** The OpenAPI schema a ResourceSlice is checked against. */
  public static final String SCHEMA = "io.k8s.api.resource.v1.ResourceSlice";

  private final FakeApiServer server;
  private final String driver;
  private final Optional<String> node;

  /** The slices of {@code driver} on {@code server}. */
  public PublishedSlices(FakeApiServer server, String driver) {
    this(server, driver, Optional.empty());
  }

  private PublishedSlices(FakeApiServer server, String driver, Optional<String> node) {
    this.server = server;
    this.driver = driver;
    this.node = node;
  }

  /** The slices of {@code driver} on {@code server} whose {@code spec.nodeName} is {@code node}. */
  public static PublishedSlices onNode(FakeApiServer server, String driver, String node) {
    return new PublishedSlices(server, driver, Optional.of(node));
  }

  /** All slices of the driver, by pool, each pool's slices in name order. */
  public Map<String, List<ResourceSlice>> byPool() {
    Map<String, List<ResourceSlice>> out = new TreeMap<>();
    for (ResourceSlice s : server.objects(ResourceSlice.TYPE)) {
      if (s.spec().driver().equals(driver)
          && (node.isEmpty() || s.spec().nodeName().equals(node))) {
        out.computeIfAbsent(s.spec().pool().name(), k -> new ArrayList<>()).add(s);
      }
    }
    out.values().forEach(l -> l.sort(Comparator.comparing(s -> s.metadata().name())));
    return out;
  }

  /** One pool's slices in name order (empty if none). */
  public List<ResourceSlice> pool(String name) {
    return byPool().getOrDefault(name, List.of());
  }

  /** The pool's devices in the scheduler's order (slice name order, then device order). */
  public List<Device> devices(String pool) {
    return pool(pool).stream().flatMap(s -> s.spec().devices().stream()).toList();
  }

  /**
   * The pool's generation.
   *
   * @throws AssertionError unless all its slices agree
   */
  public long generation(String pool) {
    return generation(pool, pool(pool));
  }

  private static long generation(String pool, List<ResourceSlice> slices) {
    Set<Long> g =
        slices.stream().map(s -> s.spec().pool().generation()).collect(Collectors.toSet());
    check(g.size() == 1, "pool %s: its slices carry generations %s, expected exactly one", pool, g);
    return g.iterator().next();
  }

  /** Slice name to resourceVersion, to see which slices were written. */
  public Map<String, String> versions(String pool) {
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
   * @throws AssertionError naming the slice and the broken rule
   */
  public void assertValid(Optional<String> node, String nodeUid) {
    assertValid(node, nodeUid, Optional.empty());
  }

  /**
   * Checks every slice of the driver, for a publisher that gives slices without {@code nodeName} an
   * owner.
   *
   * @param node the publisher's node, for owner references; empty for a cluster-wide publisher
   * @param nodeUid the node's uid
   * @param owner the owner reference every slice without {@code nodeName} must have; empty: none
   * @throws AssertionError naming the slice and the broken rule
   */
  public void assertValid(Optional<String> node, String nodeUid, Optional<OwnerReference> owner) {
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

        long count = s.spec().pool().resourceSliceCount();
        check(
            count == n, "slice %s: resourceSliceCount is %d, pool %s has %d", name, count, pool, n);
        OptionalInt index = SliceNames.parseIndex(name, n);
        check(index.isPresent(), "slice %s: its name has no index prefix for %d slices", name, n);
        check(indices.add(index.getAsInt()), "slice %s: index taken twice in pool %s", name, pool);

        List<Device> ds = s.spec().devices();
        int limit =
            ds.stream().anyMatch(Device::usesAdvancedFeatures)
                ? Limits.MAX_DEVICES_PER_SLICE_WITH_ADVANCED_FEATURES
                : Limits.MAX_DEVICES_PER_SLICE;
        check(ds.size() <= limit, "slice %s: %d devices, the limit is %d", name, ds.size(), limit);
        int sets = s.spec().sharedCounters().size();
        check(
            sets <= Limits.MAX_COUNTER_SETS_PER_SLICE,
            "slice %s: %d counter sets, the limit is %d",
            name,
            sets,
            Limits.MAX_COUNTER_SETS_PER_SLICE);
        check(
            sets == 0 || ds.isEmpty(),
            "slice %s: a slice with counter sets must have no devices",
            name);
        if (s.spec().nodeName().isPresent()) {
          check(
              s.spec().nodeName().equals(node),
              "slice %s: nodeName %s, the publisher's node is %s",
              name,
              s.spec().nodeName(),
              node);
          List<OwnerReference> expected = List.of(OwnerReference.node(node.orElseThrow(), nodeUid));
          check(
              s.metadata().ownerReferences().equals(expected),
              "slice %s: owner references %s, expected %s",
              name,
              s.metadata().ownerReferences(),
              expected);
        } else {
          check(
              s.metadata().ownerReferences().equals(owner.stream().toList()),
              "slice %s: owner references %s, expected the publisher's owner %s (none: the slice"
                  + " outlives any node)",
              name,
              s.metadata().ownerReferences(),
              owner);
        }
        devices.addAll(ds);
        counterSets.addAll(s.spec().sharedCounters());
      }
      generation(pool, slices);

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
          PoolValidator.validate(
              driver,
              Pool.builder(pool).devices(devices).counterSets(counterSets).scope(scope).build());
      check(
          v.errors().isEmpty(),
          "the published pool %s, validated as a whole: %s",
          pool,
          v.errors());
    }
  }

  private static void check(boolean ok, String format, Object... args) {
    if (!ok) {
      throw new AssertionError(String.format(format, args));
    }
  }
}
