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
import io.dra4j.api.provider.PoolScope;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
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

  /** What prepare needs to know about one published device. */
  record Entry(String name, String uuid, String model, String envId, Optional<String> parent) {}

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

  String pool() {
    return inventory.pools().get(0).name();
  }

  Optional<Entry> entry(String device) {
    return Optional.ofNullable(entries.get(device));
  }

  /** Device names in publishing order. */
  List<String> deviceNames() {
    return inventory.pools().get(0).devices().stream().map(Device::name).toList();
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
      Optional<String> bdf =
          s.pciBusIds().isEmpty() ? Optional.empty() : Optional.of(s.pciBusIds().get(i));
      Device.Builder b = common(Device.builder(name), s.type(), uuid, i, model, bdf);
      if (s.consumable()) {
        b.allowMultipleAllocations(true)
            .capacity(
                FakeDeviceProvider.CAPACITY_MEMORY,
                new DeviceCapacity(s.memory(), Optional.of(memoryPolicy(memBytes))));
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
        counterSets.add(new CounterSet(counterSet, totals));
        // The full device draws everything, so it excludes every partition and vice versa.
        b.consumesCounters(new DeviceCounterConsumption(counterSet, totals));
      }
      devices.add(b.build());
      entries.put(name, new Entry(name, uuid, model, Integer.toString(i), Optional.empty()));

      for (int p = 0; p < s.partitions(); p++) {
        String pname = name + "-part-" + p;
        String puuid = uuid(driverName, nodeName, pname);
        devices.add(
            common(
                    Device.builder(pname),
                    s.type() + FakeSettings.PARTITION_TYPE_SUFFIX,
                    puuid,
                    i,
                    model,
                    bdf)
                .attribute(FakeDeviceProvider.ATTR_PARENT, name)
                .attribute(FakeDeviceProvider.ATTR_PARTITION, p)
                .capacity(FakeDeviceProvider.CAPACITY_MEMORY, Quantity.ofBytes(partMem))
                .consumesCounters(
                    new DeviceCounterConsumption(
                        counterSet,
                        Map.of(
                            FakeDeviceProvider.COUNTER_MEMORY,
                            Counter.of(Quantity.ofBytes(partMem)),
                            FakeDeviceProvider.COUNTER_COMPUTE,
                            Counter.of(Quantity.of(1)))))
                .build());
        entries.put(pname, new Entry(pname, puuid, model, i + "_PART_" + p, Optional.of(name)));
      }
    }
    Pool pool = new Pool(nodeName, devices, counterSets, PoolScope.node());
    return new FakeInventory(driverName, Inventory.of(pool), entries);
  }

  private static Device.Builder common(
      Device.Builder b, String type, String uuid, int index, String model, Optional<String> bdf) {
    b.attribute(FakeDeviceProvider.ATTR_TYPE, type)
        .attribute(FakeDeviceProvider.ATTR_UUID, uuid)
        .attribute(FakeDeviceProvider.ATTR_INDEX, index)
        .attribute(FakeDeviceProvider.ATTR_MODEL, model)
        .attribute(
            FakeDeviceProvider.ATTR_DRIVER_VERSION,
            DeviceAttribute.version(FakeDeviceProvider.DRIVER_VERSION));
    bdf.ifPresent(v -> b.attribute(StandardAttributes.PCI_BUS_ID, v));
    return b;
  }

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
