package io.dra4j.fake;

import io.dra4j.api.device.CapacityRequestPolicy;
import io.dra4j.api.device.Counter;
import io.dra4j.api.device.CounterSet;
import io.dra4j.api.device.Device;
import io.dra4j.api.device.DeviceAttribute;
import io.dra4j.api.device.DeviceCapacity;
import io.dra4j.api.device.DeviceCounterConsumption;
import io.dra4j.api.device.Quantity;
import io.dra4j.api.device.StandardAttributes;
import io.dra4j.api.provider.Inventory;
import io.dra4j.api.provider.Pool;
import io.dra4j.api.provider.SkipNodeOperation;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;

/**
 * The simulated devices as a pure function of the settings, the driver name and the node name, so
 * every discovery (and every provider with the same settings) yields the same inventory.
 */
final class FakeInventory {
  static final long MI = 1024L * 1024;
  static final long GI = 1024 * MI;

  /** The name of the skipping pool is the node's pool name with this suffix. */
  static final String SKIP_POOL_SUFFIX = "-skip";

  /** What prepare needs to know about one published device. */
  record Entry(
      String pool,
      String name,
      String uuid,
      String model,
      String envId,
      Optional<String> parent,
      Optional<String> mode) {}

  private final String driverName;
  private final Inventory inventory;
  private final Map<String, Entry> entries;

  private FakeInventory(String driverName, Inventory inventory, Map<String, Entry> entries) {
    this.driverName = driverName;
    this.inventory = inventory;
    this.entries = Map.copyOf(entries);
  }

  String driverName() {
    return driverName;
  }

  Inventory inventory() {
    return inventory;
  }

  /** The pool names, the node's own pool first. */
  List<String> pools() {
    return inventory.pools().stream().map(Pool::name).toList();
  }

  /** A device by name: names are unique across the pools. */
  Optional<Entry> entry(String device) {
    return Optional.ofNullable(entries.get(device));
  }

  /** Device names in publishing order, pool by pool. */
  List<String> deviceNames() {
    return inventory.pools().stream().flatMap(p -> p.devices().stream()).map(Device::name).toList();
  }

  static String uuid(String driverName, String nodeName, String device) {
    return UUID.nameUUIDFromBytes(
            (driverName + "/" + nodeName + "/" + device).getBytes(StandardCharsets.UTF_8))
        .toString();
  }

  static FakeInventory build(FakeSettings s, String driverName, String nodeName) {
    long memBytes = s.memory().longValue();
    String model = "FAKE-" + (memBytes % GI == 0 ? Long.toString(memBytes / GI) : s.memory());
    List<Device> devices = new ArrayList<>();
    List<CounterSet> counterSets = new ArrayList<>();
    Map<String, Entry> entries = new LinkedHashMap<>();
    long partMem = s.partitions() == 0 ? 0 : memBytes / s.partitions() / MI * MI;

    for (int i = 0; i < s.devices(); i++) {
      String name = "gpu-" + i;
      String uuid = uuid(driverName, nodeName, name);
      List<String> bdf = s.pciBusIds().isEmpty() ? List.of() : s.pciBusIds().get(i);
      Device.Builder b = common(Device.builder(name), s, name, s.type(), uuid, i, model, bdf);
      if (s.consumable()) {
        b.allowMultipleAllocations(true)
            .capacity(
                FakeDeviceProvider.CAPACITY_MEMORY,
                DeviceCapacity.of(s.memory()).withRequestPolicy(memoryPolicy(memBytes)));
        if (s.fractionalCompute()) {
          b.capacity(
              FakeDeviceProvider.CAPACITY_COMPUTE,
              DeviceCapacity.of(Quantity.of(1)).withRequestPolicy(COMPUTE_POLICY));
        }
      } else {
        b.capacity(FakeDeviceProvider.CAPACITY_MEMORY, s.memory());
      }
      String counterSet = name + "-counters";
      if (s.partitions() > 0) {
        Map<String, Counter> totals =
            Map.of(
                FakeDeviceProvider.COUNTER_MEMORY,
                Counter.of(Quantity.ofBytes(partMem * s.partitions())),
                FakeDeviceProvider.COUNTER_COMPUTE,
                Counter.of(Quantity.of(s.partitions())));
        counterSets.add(CounterSet.of(counterSet, totals));
        // The full device draws everything, so it excludes every partition and vice versa.
        b.consumesCounters(DeviceCounterConsumption.of(counterSet, totals));
      }
      devices.add(b.build());
      entries.put(
          name,
          new Entry(
              nodeName,
              name,
              uuid,
              model,
              Integer.toString(i),
              Optional.empty(),
              Optional.empty()));

      // Without modes one set of partitions; with modes one set per mode, which exclude each
      // other through their compatibility groups although the counters would allow a mix.
      List<Optional<String>> modes =
          s.partitionModes().isEmpty()
              ? List.of(Optional.empty())
              : s.partitionModes().stream().map(Optional::of).toList();
      for (Optional<String> mode : modes) {
        for (int p = 0; p < s.partitions(); p++) {
          String pname = name + "-" + mode.orElse("part") + "-" + p;
          String puuid = uuid(driverName, nodeName, pname);
          Device.Builder pb =
              common(
                      Device.builder(pname),
                      s,
                      pname,
                      s.type() + FakeSettings.PARTITION_TYPE_SUFFIX,
                      puuid,
                      i,
                      model,
                      bdf)
                  .attribute(FakeDeviceProvider.ATTR_PARENT, name)
                  .attribute(FakeDeviceProvider.ATTR_PARTITION, p)
                  .capacity(FakeDeviceProvider.CAPACITY_MEMORY, Quantity.ofBytes(partMem))
                  .consumesCounters(
                      DeviceCounterConsumption.of(
                              counterSet,
                              Map.of(
                                  FakeDeviceProvider.COUNTER_MEMORY,
                                  Counter.of(Quantity.ofBytes(partMem)),
                                  FakeDeviceProvider.COUNTER_COMPUTE,
                                  Counter.of(Quantity.of(1))))
                          .withCompatibilityGroups(mode.map(List::of).orElse(List.of())));
          mode.ifPresent(m -> pb.attribute(FakeDeviceProvider.ATTR_MODE, m));
          devices.add(pb.build());
          String envId =
              i + "_" + mode.orElse("part").toUpperCase(Locale.ROOT).replace('-', '_') + "_" + p;
          entries.put(
              pname, new Entry(nodeName, pname, puuid, model, envId, Optional.of(name), mode));
        }
      }
    }
    List<Pool> pools = new ArrayList<>();
    pools.add(Pool.builder(nodeName).devices(devices).counterSets(counterSets).build());
    if (!s.skipNodeOperations().isEmpty()) {
      pools.add(skipPool(s, driverName, nodeName, model, entries));
    }
    return new FakeInventory(driverName, Inventory.of(pools), entries);
  }

  /**
   * The second pool of {@link FakeDeviceProvider#CONFIG_SKIP_NODE_OPERATIONS}: as many plain
   * devices {@code gpu-skip-<i>} as full devices, whose slices carry the skipped operations.
   */
  private static Pool skipPool(
      FakeSettings s,
      String driverName,
      String nodeName,
      String model,
      Map<String, Entry> entries) {
    String pool = nodeName + SKIP_POOL_SUFFIX;
    List<Device> devices = new ArrayList<>();
    for (int i = 0; i < s.devices(); i++) {
      String name = "gpu-skip-" + i;
      String uuid = uuid(driverName, nodeName, name);
      devices.add(
          common(Device.builder(name), s, name, s.type(), uuid, i, model, List.of())
              .attribute(FakeDeviceProvider.ATTR_SKIPS_NODE_OPERATIONS, true)
              .capacity(FakeDeviceProvider.CAPACITY_MEMORY, s.memory())
              .build());
      entries.put(
          name,
          new Entry(pool, name, uuid, model, "SKIP_" + i, Optional.empty(), Optional.empty()));
    }
    return Pool.builder(pool)
        .devices(devices)
        .skipNodeOperations(s.skipNodeOperations().toArray(SkipNodeOperation[]::new))
        .build();
  }

  private static Device.Builder common(
      Device.Builder b,
      FakeSettings s,
      String name,
      String type,
      String uuid,
      int index,
      String model,
      List<String> bdf) {
    b.attribute(FakeDeviceProvider.ATTR_TYPE, type)
        .attribute(FakeDeviceProvider.ATTR_UUID, uuid)
        .attribute(FakeDeviceProvider.ATTR_INDEX, index)
        .attribute(FakeDeviceProvider.ATTR_MODEL, model)
        .attribute(
            FakeDeviceProvider.ATTR_DRIVER_VERSION,
            DeviceAttribute.version(FakeDeviceProvider.DRIVER_VERSION));
    if (bdf.size() == 1) {
      b.attribute(StandardAttributes.PCI_BUS_ID, bdf.get(0));
    } else if (!bdf.isEmpty()) {
      // Several functions: the topology enricher publishes the first and the list forms.
      b.attribute(StandardAttributes.PCI_BUS_ID, DeviceAttribute.ofStrings(bdf));
    }
    if (s.attaches(name)) {
      b.bindingConditions(
          List.of(FakeDeviceProvider.CONDITION_ATTACHED),
          List.of(FakeDeviceProvider.CONDITION_ATTACH_FAILED));
    }
    return b;
  }

  /**
   * Compute shares of a shared device: a request names a fraction of the one device (at least 100m,
   * rounded up to steps of 50m); a request that names none takes 100m.
   */
  static final CapacityRequestPolicy COMPUTE_POLICY =
      CapacityRequestPolicy.range(
          Quantity.parse("100m"), Quantity.parse("100m"), Quantity.of(1), Quantity.parse("50m"));

  /**
   * Requests take whole steps of 1Gi (half the memory for devices under 2Gi), starting at one step;
   * a request that names no memory gets one step.
   */
  static CapacityRequestPolicy memoryPolicy(long memBytes) {
    long step = memBytes >= 2 * GI ? GI : memBytes / 2;
    long max = step + (memBytes - step) / step * step;
    Quantity q = Quantity.ofBytes(step);
    return CapacityRequestPolicy.range(q, q, Quantity.ofBytes(max), q);
  }
}
