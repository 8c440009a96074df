package io.dra4j.fake;

import static io.dra4j.fake.Fixtures.context;
import static io.dra4j.fake.Fixtures.device;
import static io.dra4j.fake.Fixtures.pool;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

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
import io.dra4j.api.provider.ProviderContext;
import java.math.BigDecimal;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

class FakeDiscoveryTest {

  private static final Pattern DNS_LABEL = Pattern.compile("[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?");

  private static Inventory discover(Map<String, String> config) {
    return new FakeDeviceProvider().discover(context(config));
  }

  private static Object attr(Device d, String name) {
    return d.attribute(name)
        .orElseThrow(() -> new AssertionError(d.name() + " has no " + name))
        .javaValue();
  }

  @Test
  void defaultsGiveEightWholeDevicesInANodeLocalPool() {
    Inventory inv = discover(Map.of());

    assertThat(inv.pools()).hasSize(1);
    Pool pool = pool(inv);
    assertThat(pool.name()).isEqualTo(Fixtures.NODE);
    assertThat(pool.scope()).isEqualTo(PoolScope.node());
    assertThat(pool.counterSets()).isEmpty();
    assertThat(pool.devices())
        .extracting(Device::name)
        .containsExactly("gpu-0", "gpu-1", "gpu-2", "gpu-3", "gpu-4", "gpu-5", "gpu-6", "gpu-7");
    Device d = device(inv, "gpu-3");
    assertThat(attr(d, "type")).isEqualTo("gpu");
    assertThat(attr(d, "index")).isEqualTo(3L);
    assertThat(attr(d, "model")).isEqualTo("FAKE-80");
    assertThat(d.attribute("driverVersion")).contains(DeviceAttribute.version("1.0.0"));
    assertThat(UUID.fromString((String) attr(d, "uuid")).toString()).isEqualTo(attr(d, "uuid"));
    assertThat(d.capacity()).isEqualTo(Map.of("memory", DeviceCapacity.of(Quantity.parse("80Gi"))));
    assertThat(d.attribute(StandardAttributes.PCI_BUS_ID)).isEmpty();
    assertThat(d.allowMultipleAllocations()).isFalse();
    assertThat(d.consumesCounters()).isEmpty();
    assertThat(pool.devices()).extracting(x -> attr(x, "uuid")).doesNotHaveDuplicates();
  }

  @Test
  void countTypeAndMemoryAreConfigurable() {
    Inventory inv = discover(Map.of("devices", "3", "type", "npu", "memory", "1536Mi"));

    assertThat(pool(inv).devices())
        .extracting(Device::name)
        .containsExactly("gpu-0", "gpu-1", "gpu-2");
    Device d = device(inv, "gpu-2");
    assertThat(attr(d, "type")).isEqualTo("npu");
    assertThat(attr(d, "model")).isEqualTo("FAKE-1536Mi");
    assertThat(d.capacity().get("memory").value()).isEqualTo(Quantity.parse("1.5Gi"));
    assertThat(pool(discover(Map.of("devices", "0"))).devices()).isEmpty();
  }

  @Test
  void partitionsFollowTheCounterPatternAndAddUp() {
    for (int n : List.of(1, 3, 4, 7)) {
      Inventory inv = discover(Map.of("devices", "2", "partitions", Integer.toString(n)));
      Pool pool = pool(inv);

      assertThat(pool.counterSets())
          .extracting(CounterSet::name)
          .containsExactly("gpu-0-counters", "gpu-1-counters");
      assertThat(pool.devices()).hasSize(2 * (n + 1));
      for (CounterSet set : pool.counterSets()) {
        assertThat(set.counters())
            .containsOnlyKeys("memory", "compute")
            .hasSizeLessThanOrEqualTo(32);
        Map<String, BigDecimal> fromPartitions = new HashMap<>();
        for (Device d : pool.devices()) {
          assertThat(d.consumesCounters()).hasSizeLessThanOrEqualTo(2);
          for (DeviceCounterConsumption c : d.consumesCounters()) {
            CounterSet target =
                pool.counterSets().stream()
                    .filter(s -> s.name().equals(c.counterSet()))
                    .findFirst()
                    .orElseThrow(() -> new AssertionError(d.name() + " uses a missing set"));
            assertThat(target.counters())
                .containsKeys(c.counters().keySet().toArray(String[]::new));
            if (c.counterSet().equals(set.name()) && d.name().contains("-part-")) {
              c.counters()
                  .forEach((k, v) -> fromPartitions.merge(k, v.value().value(), BigDecimal::add));
            }
          }
        }
        // The partitions together draw exactly the set; the full device draws all of it alone.
        set.counters()
            .forEach(
                (k, v) ->
                    assertThat(fromPartitions.get(k)).isEqualByComparingTo(v.value().value()));
        String full = set.name().replace("-counters", "");
        assertThat(device(inv, full).consumesCounters())
            .containsExactly(DeviceCounterConsumption.of(set.name(), set.counters()));
      }
      Device part = device(inv, "gpu-1-part-0");
      assertThat(attr(part, "type")).isEqualTo("gpu-partition");
      assertThat(attr(part, "parent")).isEqualTo("gpu-1");
      assertThat(attr(part, "partition")).isEqualTo(0L);
      assertThat(attr(part, "index")).isEqualTo(1L);
      assertThat(part.capacity().get("memory").value())
          .isEqualTo(part.consumesCounters().get(0).counters().get("memory").value());
      assertThat(part.consumesCounters().get(0).counters().get("compute"))
          .isEqualTo(Counter.of(Quantity.of(1)));
    }
  }

  @Test
  void unevenPartitionsRoundMemoryDownToWholeMebibytes() {
    Inventory inv = discover(Map.of("devices", "1", "partitions", "3"));

    Quantity part = device(inv, "gpu-0-part-2").capacity().get("memory").value();
    assertThat(part).isEqualTo(Quantity.parse("27306Mi"));
    assertThat(pool(inv).counterSets().get(0).counters().get("memory").value())
        .isEqualTo(Quantity.parse("81918Mi"));
    assertThat(device(inv, "gpu-0").capacity().get("memory").value())
        .isEqualTo(Quantity.parse("80Gi"));
  }

  @Test
  void consumableDevicesHaveAValidMemoryPolicy() {
    for (String mem : List.of("80Gi", "1Gi", "3Gi", "2500Mi", "7")) {
      Device d = device(discover(Map.of("consumable", "true", "memory", mem)), "gpu-0");

      assertThat(d.allowMultipleAllocations()).isTrue();
      DeviceCapacity cap = d.capacity().get("memory");
      CapacityRequestPolicy p = cap.requestPolicy().orElseThrow();
      CapacityRequestPolicy.Range r = p.validRange().orElseThrow();
      BigDecimal capacity = cap.value().value();
      BigDecimal min = r.min().value();
      BigDecimal step = r.step().orElseThrow().value();
      BigDecimal max = r.max().orElseThrow().value();
      BigDecimal def = p.defaultValue().orElseThrow().value();

      assertThat(p.validValues()).isEmpty();
      assertThat(step.signum()).as(mem).isPositive();
      assertThat(min.signum()).isNotNegative();
      assertThat(min.add(step)).as(mem).isLessThanOrEqualTo(capacity);
      assertThat(max).as(mem).isLessThanOrEqualTo(capacity).isGreaterThanOrEqualTo(min);
      assertThat(def).as(mem).isBetween(min, max);
      assertThat(def.subtract(min).remainder(step).signum()).as(mem).isZero();
      assertThat(max.subtract(min).remainder(step).signum()).as(mem).isZero();
    }
    CapacityRequestPolicy big =
        device(discover(Map.of("consumable", "true")), "gpu-0")
            .capacity()
            .get("memory")
            .requestPolicy()
            .orElseThrow();
    assertThat(big)
        .isEqualTo(
            CapacityRequestPolicy.range(
                Quantity.parse("1Gi"),
                Quantity.parse("1Gi"),
                Quantity.parse("80Gi"),
                Quantity.parse("1Gi")));
  }

  @Test
  void pciBusIdsAreFakeOrTakenFromTheList() {
    Inventory fake = discover(Map.of("devices", "3", "pci-bus-ids", "fake", "partitions", "1"));
    assertThat(pool(fake).devices())
        .extracting(d -> attr(d, StandardAttributes.PCI_BUS_ID))
        .containsExactly(
            "0000:01:00.0",
            "0000:01:00.0",
            "0000:02:00.0",
            "0000:02:00.0",
            "0000:03:00.0",
            "0000:03:00.0");

    Inventory real = discover(Map.of("devices", "2", "pci-bus-ids", "0000:3B:00.0, 0000:86:00.0"));
    assertThat(pool(real).devices())
        .extracting(d -> attr(d, StandardAttributes.PCI_BUS_ID))
        .containsExactly("0000:3b:00.0", "0000:86:00.0");
  }

  @Test
  void invalidSettingsNameTheKeyAndTheRule() {
    assertThatThrownBy(() -> discover(Map.of("devices", "-1")))
        .hasMessageContaining("devices=\"-1\"");
    assertThatThrownBy(() -> discover(Map.of("devices", "many")))
        .hasMessageContaining("devices=\"many\"");
    assertThatThrownBy(() -> discover(Map.of("memory", "lots")))
        .hasMessageContaining("memory=\"lots\"");
    assertThatThrownBy(() -> discover(Map.of("memory", "0.5")))
        .hasMessageContaining("memory=\"0.5\"")
        .hasMessageContaining("whole number of bytes");
    assertThatThrownBy(() -> discover(Map.of("partitions", "65")))
        .hasMessageContaining("partitions=\"65\"");
    assertThatThrownBy(() -> discover(Map.of("partitions", "2", "consumable", "true")))
        .hasMessageContaining("cannot be combined");
    assertThatThrownBy(() -> discover(Map.of("consumable", "yes")))
        .hasMessageContaining("consumable=\"yes\"");
    assertThatThrownBy(() -> discover(Map.of("devices", "3", "pci-bus-ids", "0000:01:00.0")))
        .hasMessageContaining("pci-bus-ids")
        .hasMessageContaining("lists 1 device but devices=3");
    assertThatThrownBy(() -> discover(Map.of("devices", "1", "pci-bus-ids", "01:00.0")))
        .hasMessageContaining("\"01:00.0\" is not one");
    assertThatThrownBy(() -> discover(Map.of("type", ""))).hasMessageContaining("type=\"\"");
    assertThatThrownBy(() -> discover(Map.of("device-nodes", "dev/null")))
        .hasMessageContaining("device-nodes=\"dev/null\"");
    assertThatThrownBy(() -> discover(Map.of("flap-period", "often")))
        .hasMessageContaining("flap-period=\"often\"");
    assertThatThrownBy(() -> discover(Map.of("flap-period", "1ms")))
        .hasMessageContaining("at least 10ms");
    assertThatThrownBy(() -> discover(Map.of("flap-period", "1s", "flap-device", "gpu-9")))
        .hasMessageContaining("flap-device=\"gpu-9\"");
  }

  @Test
  void discoveryIsDeterministic() {
    Map<String, String> config = Map.of("devices", "4", "partitions", "2", "pci-bus-ids", "fake");
    FakeDeviceProvider p = new FakeDeviceProvider();
    ProviderContext ctx = context(config);

    Inventory a = p.discover(ctx);
    Inventory b = p.discover(ctx);
    Inventory c = new FakeDeviceProvider().discover(context(config));
    Inventory otherNode =
        new FakeDeviceProvider()
            .discover(ProviderContext.builder(Fixtures.DRIVER, "node-b").config(config).build());

    assertThat(b).isEqualTo(a);
    assertThat(c).isEqualTo(a);
    assertThat(attr(device(otherNode, "gpu-0"), "uuid"))
        .isNotEqualTo(attr(device(a, "gpu-0"), "uuid"));
    assertThat(attr(device(a, "gpu-0"), "uuid"))
        .isEqualTo(
            UUID.nameUUIDFromBytes(
                    "fake.dra4j.io/node-a/gpu-0".getBytes(java.nio.charset.StandardCharsets.UTF_8))
                .toString());
  }

  @Test
  void everythingStaysWithinTheApiLimits() {
    Inventory inv =
        discover(
            Map.of(
                "devices",
                "16",
                "partitions",
                "64",
                "pci-bus-ids",
                "fake",
                "type",
                "x".repeat(54)));

    for (Device d : pool(inv).devices()) {
      assertThat(d.name()).matches(DNS_LABEL);
      assertThat(d.attributes().size() + d.capacity().size()).isLessThanOrEqualTo(32);
      d.attributes()
          .values()
          .forEach(
              v -> {
                if (v.javaValue() instanceof String s) {
                  assertThat(s.length()).isLessThanOrEqualTo(64);
                }
              });
    }
    for (CounterSet s : pool(inv).counterSets()) {
      assertThat(s.name()).matches(DNS_LABEL);
    }
  }
}
