package io.dra4j.validation;

import static org.assertj.core.api.Assertions.assertThat;

import io.dra4j.api.device.CapacityRequestPolicy;
import io.dra4j.api.device.Counter;
import io.dra4j.api.device.CounterSet;
import io.dra4j.api.device.Device;
import io.dra4j.api.device.DeviceAttribute;
import io.dra4j.api.device.DeviceCapacity;
import io.dra4j.api.device.DeviceCounterConsumption;
import io.dra4j.api.device.DeviceTaint;
import io.dra4j.api.device.NodeAllocatableResource;
import io.dra4j.api.device.NodeSelector;
import io.dra4j.api.device.Quantity;
import io.dra4j.api.device.StandardAttributes;
import io.dra4j.api.device.TaintEffect;
import io.dra4j.api.provider.Inventory;
import io.dra4j.api.provider.Pool;
import io.dra4j.api.provider.PoolScope;
import io.dra4j.api.provider.SkipNodeOperation;
import io.dra4j.kube.KubeJson;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;

class PoolValidatorTest {
  static final String DRIVER = "gpu.example.com";

  static Device.Builder gpu(String name) {
    return Device.builder(name)
        .attribute("model", "H200")
        .attribute(DRIVER + "/index", 3)
        .capacity("memory", Quantity.parse("141Gi"));
  }

  static Pool pool(Device... devices) {
    return Pool.of("node-1", List.of(devices));
  }

  static List<String> errors(Pool pool) {
    return PoolValidator.validate(DRIVER, pool).errors().stream().map(Violation::toString).toList();
  }

  static List<String> errors(Device device) {
    return errors(pool(device));
  }

  static List<String> warnings(Pool pool) {
    return PoolValidator.validate(DRIVER, pool).warnings().stream()
        .map(Violation::toString)
        .toList();
  }

  static Quantity q(String s) {
    return Quantity.parse(s);
  }

  @Test
  void aTypicalPoolIsValid() {
    Pool p =
        Pool.builder("node-1")
            .devices(
                List.of(
                    gpu("gpu-0")
                        .attribute(StandardAttributes.PCI_BUS_ID, "0000:3b:00.0")
                        .attribute(StandardAttributes.PCIE_ROOT, "pci0000:3a")
                        .attribute(StandardAttributes.NUMA_NODE, 0)
                        .attribute(
                            "driverVersion", DeviceAttribute.version("550.54.15-rc.1+build.7"))
                        .taint(
                            DeviceTaint.of(DRIVER + "/unhealthy", "XID79", TaintEffect.NO_EXECUTE))
                        .build(),
                    gpu("gpu-0-mig-1g")
                        .consumesCounters(
                            DeviceCounterConsumption.of(
                                "gpu-0", Map.of("memory", Counter.of(q("10Gi")))))
                        .bindingConditions(List.of(DRIVER + "/attached"), List.of("Failed"))
                        .build()))
            .counterSets(List.of(CounterSet.of("gpu-0", Map.of("memory", Counter.of(q("141Gi"))))))
            .build();
    PoolValidation v = PoolValidator.validate(DRIVER, p);
    assertThat(v.errors()).isEmpty();
    assertThat(v.warnings()).isEmpty();
    assertThat(v.isValid()).isTrue();
  }

  @Test
  void theMessageNamesPoolDeviceFieldAndRule() {
    String seventy = "x".repeat(70);
    assertThat(errors(gpu("gpu-3").attribute("gpu.example.com/model", seventy).build()))
        .containsExactly(
            "pool \"node-1\", device \"gpu-3\": attributes[\"gpu.example.com/model\"]: string value"
                + " is 70 bytes, the limit is 64");
  }

  @Test
  void collectsEveryErrorOfAPool() {
    Pool p =
        pool(
            gpu("GPU_0").build(),
            gpu("gpu-1").attribute("bad key", 1).build(),
            gpu("gpu-1").taint(DeviceTaint.of("", "", TaintEffect.NO_SCHEDULE)).build());
    assertThat(errors(p))
        .containsExactly(
            "pool \"node-1\", device \"GPU_0\": name: device name must be a lower-case RFC 1123"
                + " label (a-z, 0-9 and '-', starting and ending with an alphanumeric character)",
            "pool \"node-1\", device \"gpu-1\": attributes[\"bad key\"]: invalid key: the name"
                + " \"bad key\" must be a C identifier (letters, digits and '_', not starting with"
                + " a digit)",
            "pool \"node-1\", device \"gpu-1\": name: duplicate device name: devices[1] and"
                + " devices[2] have it; device names must be unique in the pool",
            "pool \"node-1\", device \"gpu-1\": taints[0].key: taint key \"\" must not be empty");
  }

  @Test
  void anInvalidPoolDoesNotAffectTheOthers() {
    Pool good = Pool.of("node-1", List.of(gpu("gpu-0").build()));
    Pool bad = Pool.of("node-1/Bad", List.of(gpu("gpu-0").build()));
    Pool alsoGood = Pool.of("shared", List.of(gpu("gpu-0").build()));
    InventoryValidation v = PoolValidator.validate(DRIVER, Inventory.of(good, bad, alsoGood));
    assertThat(v.isValid()).isFalse();
    assertThat(v.validPools()).containsExactly(good, alsoGood);
    assertThat(v.invalid()).hasSize(1);
    assertThat(v.invalid().get(0).poolName()).isEqualTo("node-1/Bad");
    assertThat(v.invalid().get(0).errorReport())
        .isEqualTo(
            "pool \"node-1/Bad\": name: pool name must be one or more lower-case DNS subdomains"
                + " separated by '/', part \"Bad\" is not");
    assertThat(v.pools().get(0).errors()).isEmpty();
    assertThat(v.pools().get(2).errors()).isEmpty();
  }

  @Test
  void duplicatePoolNamesInvalidateEveryCopy() {
    Pool a = Pool.of("node-1", List.of(gpu("gpu-0").build()));
    Pool b = Pool.of("node-1", List.of(gpu("gpu-1").build()));
    Pool c = Pool.of("other", List.of(gpu("gpu-0").build()));
    InventoryValidation v = PoolValidator.validate(DRIVER, List.of(a, b, c));
    assertThat(v.validPools()).containsExactly(c);
    assertThat(v.invalid())
        .allSatisfy(
            pv ->
                assertThat(pv.errorReport())
                    .isEqualTo(
                        "pool \"node-1\": name: the pool name is used by 2 pools of this driver;"
                            + " pool names must be unique"));
  }

  @Nested
  class DriverAndPoolNames {
    @Test
    void driverNameRules() {
      Pool p = pool(gpu("gpu-0").build());
      assertThat(PoolValidator.validate("a".repeat(64) + ".com", p).errors())
          .extracting(Violation::toString)
          .containsExactly(
              "pool \"node-1\": driver: driver name \""
                  + "a".repeat(64)
                  + ".com\" is 68 characters, the limit is 63");
      assertThat(PoolValidator.validate("gpu_example.com", p).errors())
          .extracting(Violation::toString)
          .containsExactly(
              "pool \"node-1\": driver: driver name \"gpu_example.com\" must be a DNS subdomain"
                  + " (letters, digits, '-' and '.', each label starting and ending with a letter"
                  + " or digit), e.g. gpu.example.com");
      assertThat(PoolValidator.validate("g", p).errors())
          .extracting(Violation::toString)
          .containsExactly(
              "pool \"node-1\": driver: driver name \"g\" must be at least 2 characters");
      assertThat(PoolValidator.validate("", p).errors())
          .extracting(Violation::toString)
          .containsExactly("pool \"node-1\": driver: driver name \"\" must not be empty");
      assertThat(PoolValidator.validate("gpu..example.com", p).errors()).hasSize(1);
      assertThat(PoolValidator.validate("-gpu.example.com", p).errors()).hasSize(1);
    }

    @Test
    void upperCaseDriverNamesAreAWarningOnly() {
      PoolValidation v = PoolValidator.validate("GPU.example.com", pool(gpu("gpu-0").build()));
      assertThat(v.isValid()).isTrue();
      assertThat(v.warnings())
          .extracting(Violation::toString)
          .containsExactly(
              "pool \"node-1\": driver: driver name \"GPU.example.com\" has upper-case letters:"
                  + " the API server accepts it, but the kubelet, allocation results and"
                  + " DeviceClass selectors compare driver names exactly; use lower case");
    }

    @Test
    void poolNameRules() {
      assertThat(errors(Pool.of("cluster/rack-1/node-1.example", List.of()))).isEmpty();
      assertThat(errors(Pool.of("", List.of())))
          .containsExactly("pool \"\": name: pool name must not be empty");
      assertThat(errors(Pool.of("a//b", List.of())))
          .containsExactly(
              "pool \"a//b\": name: pool name must be one or more lower-case DNS subdomains"
                  + " separated by '/', part \"\" is not");
      String long254 = ("a".repeat(63) + ".").repeat(3) + "a".repeat(62);
      assertThat(long254).hasSize(254);
      assertThat(errors(Pool.of(long254, List.of())))
          .containsExactly(
              "pool \"" + long254 + "\": name: pool name is 254 characters, the limit is 253");
    }

    @Test
    void deviceNamesAreDnsLabels() {
      assertThat(errors(gpu("a".repeat(64)).build()))
          .containsExactly(
              "pool \"node-1\", device \""
                  + "a".repeat(64)
                  + "\": name: device name is 64 characters, the limit is 63");
      assertThat(errors(gpu("gpu.0").build())).hasSize(1);
      assertThat(errors(gpu("").build()))
          .containsExactly("pool \"node-1\", device \"\": name: device name must not be empty");
    }
  }

  @Nested
  class Attributes {
    @Test
    void qualifiedNameRules() {
      String longId = "a".repeat(33);
      String longDomain = "d".repeat(60) + ".com";
      Device d =
          gpu("gpu-0")
              .attribute(longId, 1)
              .attribute(longDomain + "/x", 1)
              .attribute("a/b/c", 1)
              .attribute("/x", 1)
              .attribute("example.com/", 1)
              .attribute("example.com/9lives", 1)
              .build();
      assertThat(errors(d))
          .containsExactly(
              "pool \"node-1\", device \"gpu-0\": attributes[\"/x\"]: invalid key: the domain"
                  + " before '/' must not be empty",
              "pool \"node-1\", device \"gpu-0\": attributes[\"a/b/c\"]: invalid key: must be a C"
                  + " identifier or domain/C identifier with one '/', it has more",
              "pool \"node-1\", device \"gpu-0\": attributes[\""
                  + longId
                  + "\"]: invalid key: the name \""
                  + longId
                  + "\" is 33 characters, the limit is 32",
              "pool \"node-1\", device \"gpu-0\": attributes[\""
                  + longDomain
                  + "/x\"]: invalid key: the domain \""
                  + longDomain
                  + "\" is 64 characters, the limit is 63",
              "pool \"node-1\", device \"gpu-0\": attributes[\"example.com/\"]: invalid key: the"
                  + " name after '/' must not be empty",
              "pool \"node-1\", device \"gpu-0\": attributes[\"example.com/9lives\"]: invalid key:"
                  + " the name \"9lives\" must be a C identifier (letters, digits and '_', not"
                  + " starting with a digit)");
    }

    @Test
    void capacityKeysFollowTheSameRules() {
      assertThat(errors(gpu("gpu-0").capacity("mem-bytes", q("1")).build()))
          .containsExactly(
              "pool \"node-1\", device \"gpu-0\": capacity[\"mem-bytes\"]: invalid key: the name"
                  + " \"mem-bytes\" must be a C identifier (letters, digits and '_', not starting"
                  + " with a digit)");
    }

    @Test
    void upperCaseDomainIsAWarning() {
      Pool p = pool(gpu("gpu-0").attribute("Example.com/x", 1).build());
      assertThat(errors(p)).isEmpty();
      assertThat(warnings(p))
          .containsExactly(
              "pool \"node-1\", device \"gpu-0\": attributes[\"Example.com/x\"]: the domain"
                  + " \"Example.com\" has upper-case letters; use lower case");
    }

    @Test
    void bareAndQualifiedFormOfOneAttributeIsAWarning() {
      Pool p = pool(gpu("gpu-0").attribute(DRIVER + "/model", "H100").build());
      assertThat(errors(p)).isEmpty();
      assertThat(warnings(p))
          .containsExactly(
              "pool \"node-1\", device \"gpu-0\": attributes[\"model\"]: \"model\" and"
                  + " \"gpu.example.com/model\" are the same attribute (unqualified names are in"
                  + " the driver's domain); publish only one");
    }

    @Test
    void stringLengthIsCountedInUtf8Bytes() {
      // 32 characters, 64 bytes: fine; 33 characters, 66 bytes: too long.
      assertThat(errors(gpu("gpu-0").attribute("name", "é".repeat(32)).build())).isEmpty();
      assertThat(errors(gpu("gpu-0").attribute("name", "é".repeat(33)).build()))
          .containsExactly(
              "pool \"node-1\", device \"gpu-0\": attributes[\"name\"]: string value is 66 bytes,"
                  + " the limit is 64");
    }

    @Test
    void versionsAreStrictSemver() {
      for (String ok : List.of("1.2.3", "0.0.0", "1.2.3-rc.1", "1.2.3-0a.1+b.01", "10.20.30")) {
        assertThat(errors(gpu("gpu-0").attribute("v", DeviceAttribute.version(ok)).build()))
            .as(ok)
            .isEmpty();
      }
      for (String bad :
          List.of("1.2", "v1.2.3", "01.2.3", "1.2.3-01", "1.2.3-", "1.2.3+", "1.2.3 ", "1.2.x")) {
        assertThat(errors(gpu("gpu-0").attribute("v", DeviceAttribute.version(bad)).build()))
            .as(bad)
            .containsExactly(
                "pool \"node-1\", device \"gpu-0\": attributes[\"v\"]: version value \""
                    + bad
                    + "\" is not a semantic version 2.0.0 (MAJOR.MINOR.PATCH without leading"
                    + " zeros, optional -prerelease and +build)");
      }
      String long65 = "1.2.3-" + "a".repeat(59);
      assertThat(errors(gpu("gpu-0").attribute("v", DeviceAttribute.version(long65)).build()))
          .containsExactly(
              "pool \"node-1\", device \"gpu-0\": attributes[\"v\"]: version value is 65 bytes,"
                  + " the limit is 64");
    }

    @Test
    void listFormsMustBeNonEmptyAndEachItemValid() {
      Device d =
          gpu("gpu-0")
              .attribute("a", DeviceAttribute.ofInts(List.of()))
              .attribute("b", new DeviceAttribute.BoolValues(List.of()))
              .attribute("c", DeviceAttribute.ofStrings(List.of("ok", "y".repeat(65))))
              .attribute("d", new DeviceAttribute.VersionValues(List.of("1.0.0", "1.0")))
              .attribute("e", new DeviceAttribute.StringValues(List.of()))
              .build();
      assertThat(errors(d))
          .containsExactly(
              "pool \"node-1\", device \"gpu-0\": attributes[\"a\"]: ints must not be empty; omit"
                  + " the attribute instead",
              "pool \"node-1\", device \"gpu-0\": attributes[\"b\"]: bools must not be empty; omit"
                  + " the attribute instead",
              "pool \"node-1\", device \"gpu-0\": attributes[\"c\"].strings[1]: string value is 65"
                  + " bytes, the limit is 64",
              "pool \"node-1\", device \"gpu-0\": attributes[\"d\"].versions[1]: version value"
                  + " \"1.0\" is not a semantic version 2.0.0 (MAJOR.MINOR.PATCH without leading"
                  + " zeros, optional -prerelease and +build)",
              "pool \"node-1\", device \"gpu-0\": attributes[\"e\"]: strings must not be empty;"
                  + " omit the attribute instead");
    }

    @Test
    void atMost32AttributesAndCapacities() {
      Device.Builder b = Device.builder("gpu-0");
      IntStream.range(0, 20).forEach(i -> b.attribute("a" + i, i));
      IntStream.range(0, 12).forEach(i -> b.capacity("c" + i, q("1")));
      assertThat(errors(b.build())).isEmpty();
      b.capacity("c12", q("1"));
      assertThat(errors(b.build()))
          .containsExactly(
              "pool \"node-1\", device \"gpu-0\": attributes: has 20 attributes and 13 capacities,"
                  + " 33 together, the limit is 32");
    }

    @Test
    void atMost48AttributeValues() {
      Device.Builder b = Device.builder("gpu-0");
      b.attribute("l0", DeviceAttribute.ofInts(LongList.of(40)));
      IntStream.range(0, 8).forEach(i -> b.attribute("s" + i, i));
      assertThat(errors(b.build())).isEmpty();
      b.attribute("s8", 8);
      assertThat(errors(b.build()))
          .containsExactly(
              "pool \"node-1\", device \"gpu-0\": attributes: has 49 attribute values (list items"
                  + " counted one by one), the limit is 48");
    }

    @Test
    void standardAttributesHaveTheirTypeAndFormat() {
      Device ok =
          gpu("gpu-0")
              .attribute(
                  StandardAttributes.PCIE_ROOT,
                  DeviceAttribute.ofStrings(List.of("pci0000:00", "pci0001:80")))
              .attribute(StandardAttributes.NUMA_NODE, DeviceAttribute.ofInts(List.of(1L, 0L)))
              .build();
      assertThat(errors(ok)).isEmpty();
      Device bad =
          gpu("gpu-0")
              .attribute(StandardAttributes.PCI_BUS_ID, "0000:3B:00.0")
              .attribute(StandardAttributes.PCIE_ROOT, "0000:00")
              .attribute(StandardAttributes.NUMA_NODE, -1)
              .attribute("resource.kubernetes.io/gpuModel", "H200")
              .attribute("kubernetes.io/foo", 1)
              .capacity("resource.kubernetes.io/memory", q("1Gi"))
              .build();
      assertThat(errors(bad))
          .containsExactly(
              "pool \"node-1\", device \"gpu-0\": attributes[\"kubernetes.io/foo\"]: the"
                  + " kubernetes.io domains are reserved for standardized attributes; known ones"
                  + " are resource.kubernetes.io/pciBusID, resource.kubernetes.io/pcieRoot and"
                  + " resource.kubernetes.io/numaNode",
              "pool \"node-1\", device \"gpu-0\": attributes[\"resource.kubernetes.io/gpuModel\"]:"
                  + " the kubernetes.io domains are reserved for standardized attributes; known"
                  + " ones are resource.kubernetes.io/pciBusID, resource.kubernetes.io/pcieRoot"
                  + " and resource.kubernetes.io/numaNode",
              "pool \"node-1\", device \"gpu-0\": attributes[\"resource.kubernetes.io/numaNode\"]:"
                  + " NUMA node -1 is not between 0 and 1023; omit the attribute for devices"
                  + " without NUMA affinity",
              "pool \"node-1\", device \"gpu-0\": attributes[\"resource.kubernetes.io/pciBusID\"]:"
                  + " must be a string PCI address in lower-case extended BDF form dddd:bb:dd.f,"
                  + " e.g. 0000:3b:00.0",
              "pool \"node-1\", device \"gpu-0\": attributes[\"resource.kubernetes.io/pcieRoot\"]:"
                  + " must be a string (or list of strings) naming a PCIe root as"
                  + " pci<domain>:<bus> in lower-case hex, e.g. pci0000:00",
              "pool \"node-1\", device \"gpu-0\": capacity[\"resource.kubernetes.io/memory\"]: the"
                  + " kubernetes.io domains are reserved and define no standard capacities");
      assertThat(errors(gpu("gpu-0").attribute(StandardAttributes.NUMA_NODE, "0").build()))
          .containsExactly(
              "pool \"node-1\", device \"gpu-0\": attributes[\"resource.kubernetes.io/numaNode\"]:"
                  + " must be an int or a list of ints (NUMA node numbers)");
    }
  }

  @Nested
  class Taints {
    @Test
    void atMost16() {
      Device.Builder b = gpu("gpu-0");
      IntStream.range(0, 16)
          .forEach(i -> b.taint(DeviceTaint.of(DRIVER + "/t" + i, "", TaintEffect.NONE)));
      assertThat(errors(b.build())).isEmpty();
      b.taint(DeviceTaint.of(DRIVER + "/t16", "", TaintEffect.NONE));
      assertThat(errors(b.build()))
          .containsExactly(
              "pool \"node-1\", device \"gpu-0\": taints: has 17 taints, the limit is 16 (4 in"
                  + " 1.34)");
    }

    @Test
    void keyValueAndTimeRules() {
      Device d =
          gpu("gpu-0")
              .taint(DeviceTaint.of("Example.com/x", "ok", TaintEffect.NO_SCHEDULE))
              .taint(DeviceTaint.of(DRIVER + "/" + "n".repeat(64), "", TaintEffect.NO_SCHEDULE))
              .taint(DeviceTaint.of(DRIVER + "/x", "not valid!", TaintEffect.NO_SCHEDULE))
              .taint(DeviceTaint.of(DRIVER + "/y", "v".repeat(64), TaintEffect.NO_SCHEDULE))
              .taint(
                  DeviceTaint.of(DRIVER + "/z", "", TaintEffect.NO_EXECUTE)
                      .withTimeAdded("yesterday"))
              .taint(
                  DeviceTaint.of(DRIVER + "/w", "", TaintEffect.NO_EXECUTE)
                      .withTimeAdded("2026-01-02T15:04:05Z"))
              .build();
      assertThat(errors(d))
          .containsExactly(
              "pool \"node-1\", device \"gpu-0\": taints[0].key: taint key \"Example.com/x\" the"
                  + " prefix \"Example.com\" must be a lower-case DNS subdomain (RFC 1123: labels"
                  + " of a-z, 0-9 and '-' separated by '.', each starting and ending with an"
                  + " alphanumeric character)",
              "pool \"node-1\", device \"gpu-0\": taints[1].key: taint key \"gpu.example.com/"
                  + "n".repeat(64)
                  + "\" the name part is 64 characters, the limit is 63",
              "pool \"node-1\", device \"gpu-0\": taints[2].value: taint value must be empty or"
                  + " consist of alphanumeric characters, '-', '_' or '.', starting and ending with"
                  + " an alphanumeric character",
              "pool \"node-1\", device \"gpu-0\": taints[3].value: taint value is 64 characters,"
                  + " the limit is 63",
              "pool \"node-1\", device \"gpu-0\": taints[4].timeAdded: \"yesterday\" is not an RFC"
                  + " 3339 time such as 2026-01-02T15:04:05Z");
    }

    @Test
    void reservedTaintDomainIsAWarning() {
      Pool p =
          pool(
              gpu("gpu-0")
                  .taint(DeviceTaint.of("kubernetes.io/broken", "", TaintEffect.NO_SCHEDULE))
                  .build());
      assertThat(errors(p)).isEmpty();
      assertThat(warnings(p))
          .containsExactly(
              "pool \"node-1\", device \"gpu-0\": taints[0].key: the kubernetes.io domains are"
                  + " reserved; use a domain of the driver for taint keys");
    }
  }

  @Nested
  class Counters {
    CounterSet set(String name, String... counters) {
      Map<String, Counter> m = new java.util.TreeMap<>();
      for (String c : counters) {
        m.put(c, Counter.of(q("1")));
      }
      return CounterSet.of(name, m);
    }

    Pool withSets(List<CounterSet> sets, Device... devices) {
      return Pool.builder("node-1").devices(List.of(devices)).counterSets(sets).build();
    }

    @Test
    void counterSetRules() {
      List<String> many = IntStream.range(0, 33).mapToObj(i -> "c" + i).toList();
      Pool p =
          withSets(
              List.of(
                  set("gpu-0", "memory"),
                  set("gpu-0", "memory"),
                  set("GPU_1", "Memory"),
                  set("empty"),
                  set("big", many.toArray(String[]::new))));
      assertThat(errors(p))
          .containsExactly(
              "pool \"node-1\": counterSets[1].name: duplicate counter set name \"gpu-0\"; counter"
                  + " set names must be unique in the pool",
              "pool \"node-1\": counterSets[2].name: counter set name \"GPU_1\" must be a"
                  + " lower-case RFC 1123 label (a-z, 0-9 and '-', starting and ending with an"
                  + " alphanumeric character)",
              "pool \"node-1\": counterSets[2].counters[\"Memory\"]: counter name must be a"
                  + " lower-case RFC 1123 label (a-z, 0-9 and '-', starting and ending with an"
                  + " alphanumeric character)",
              "pool \"node-1\": counterSets[3].counters: a counter set needs at least one counter",
              "pool \"node-1\": counterSets[4].counters: has 33 counters, the limit is 32");
    }

    @Test
    void manyCounterSetsPerPoolAreFineTheLayoutSplitsThem() {
      List<CounterSet> sets =
          IntStream.range(0, 20).mapToObj(i -> set("gpu-" + i, "memory")).toList();
      assertThat(errors(withSets(sets))).isEmpty();
    }

    @Test
    void consumptionRules() {
      Device d =
          gpu("mig-0")
              .consumesCounters(
                  DeviceCounterConsumption.of("gpu-0", Map.of("memory", Counter.of(q("1")))))
              .consumesCounters(
                  DeviceCounterConsumption.of("gpu-0", Map.of("memory", Counter.of(q("1")))))
              .consumesCounters(
                  DeviceCounterConsumption.of("gpu-9", Map.of("memory", Counter.of(q("1")))))
              .consumesCounters(
                  DeviceCounterConsumption.of("gpu-1", Map.of("sm", Counter.of(q("1")))))
              .consumesCounters(DeviceCounterConsumption.of("gpu-1", Map.of()))
              .build();
      Pool p = withSets(List.of(set("gpu-0", "memory"), set("gpu-1", "memory", "copy")), d);
      assertThat(errors(p))
          .containsExactly(
              "pool \"node-1\", device \"mig-0\": consumesCounters: has 5 entries, the limit is 2"
                  + " (one per counter set)",
              "pool \"node-1\", device \"mig-0\": consumesCounters[1].counterSet: counter set"
                  + " \"gpu-0\" is already consumed by consumesCounters[0]; use one entry per"
                  + " counter set",
              "pool \"node-1\", device \"mig-0\": consumesCounters[2].counterSet: counter set"
                  + " \"gpu-9\" is not one of the pool's counter sets",
              "pool \"node-1\", device \"mig-0\": consumesCounters[3].counters[\"sm\"]: counter"
                  + " \"sm\" is not in counter set \"gpu-1\" (it has copy, memory)",
              "pool \"node-1\", device \"mig-0\": consumesCounters[4].counterSet: counter set"
                  + " \"gpu-1\" is already consumed by consumesCounters[3]; use one entry per"
                  + " counter set",
              "pool \"node-1\", device \"mig-0\": consumesCounters[4].counters: must name at least"
                  + " one counter");
    }

    @Test
    void consumingMoreThanAvailableIsNotAnError() {
      Device d =
          gpu("mig-0")
              .consumesCounters(
                  DeviceCounterConsumption.of("gpu-0", Map.of("memory", Counter.of(q("1Ti")))))
              .build();
      assertThat(errors(withSets(List.of(set("gpu-0", "memory")), d))).isEmpty();
    }

    @Test
    void atMost32CountersPerConsumption() {
      List<String> names = IntStream.range(0, 33).mapToObj(i -> "c" + i).toList();
      Map<String, Counter> consumed = new java.util.TreeMap<>();
      names.forEach(n -> consumed.put(n, Counter.of(q("1"))));
      Device d = gpu("mig-0").consumesCounters(DeviceCounterConsumption.of("s", consumed)).build();
      Pool p = withSets(List.of(set("s", names.subList(0, 32).toArray(String[]::new))), d);
      assertThat(errors(p))
          .containsExactly(
              "pool \"node-1\", device \"mig-0\": consumesCounters[0].counters: has 33 counters,"
                  + " the limit is 32",
              "pool \"node-1\", device \"mig-0\": consumesCounters[0].counters[\"c32\"]: counter"
                  + " \"c32\" is not in counter set \"s\" (it has "
                  + String.join(", ", new java.util.TreeSet<>(names.subList(0, 32)))
                  + ")");
    }
  }

  @Nested
  class CompatibilityGroups {
    // The same rules as kube-apiserver v1.37.2, which answers for these three:
    // "Too many: 3: must have at most 2 items", "Duplicate value", "a lowercase RFC 1123 label".
    Device withGroups(String name, List<String> groups) {
      return gpu(name)
          .consumesCounters(
              DeviceCounterConsumption.of("gpu-0", Map.of("memory", Counter.of(q("1"))))
                  .withCompatibilityGroups(groups))
          .build();
    }

    Pool pool(Device... devices) {
      CounterSet set = CounterSet.of("gpu-0", Map.of("memory", Counter.of(q("2"))));
      return Pool.builder("node-1").devices(List.of(devices)).counterSets(List.of(set)).build();
    }

    @Test
    void atMostTwoDistinctLabelsPerConsumption() {
      Pool p =
          pool(
              withGroups("mig-0", List.of("mig", "vgpu", "mps")),
              withGroups("mig-1", List.of("mig", "mig")),
              withGroups("mig-2", List.of("Bad_Name", "")));
      assertThat(errors(p))
          .containsExactly(
              "pool \"node-1\", device \"mig-0\": consumesCounters[0].compatibilityGroups: has 3"
                  + " groups, the limit is 2",
              "pool \"node-1\", device \"mig-1\": consumesCounters[0].compatibilityGroups[1]:"
                  + " duplicate group \"mig\"",
              "pool \"node-1\", device \"mig-2\": consumesCounters[0].compatibilityGroups[0]:"
                  + " group \"Bad_Name\" must be a lower-case RFC 1123 label (a-z, 0-9 and '-',"
                  + " starting and ending with an alphanumeric character)",
              "pool \"node-1\", device \"mig-2\": consumesCounters[0].compatibilityGroups[1]:"
                  + " group \"\" must not be empty");
    }

    @Test
    void validGroupsPassWithoutWarnings() {
      Pool p =
          pool(withGroups("mig-0", List.of("mig")), withGroups("vgpu-0", List.of("vgpu", "x")));
      assertThat(errors(p)).isEmpty();
      assertThat(warnings(p)).isEmpty();
    }
  }

  @Nested
  class BindingConditions {
    @Test
    void rules() {
      Device d =
          gpu("gpu-0")
              .bindingConditions(
                  List.of("a", "b", "c", "d", "a", "bad condition"), List.of("a", "f"))
              .build();
      assertThat(errors(d))
          .containsExactly(
              "pool \"node-1\", device \"gpu-0\": bindingConditions: has 6 entries, the limit is"
                  + " 4",
              "pool \"node-1\", device \"gpu-0\": bindingConditions[4]: duplicate condition type"
                  + " \"a\"",
              "pool \"node-1\", device \"gpu-0\": bindingConditions[5]: condition type \"bad"
                  + " condition\" the name part must consist of alphanumeric characters, '-', '_'"
                  + " or '.', and must start and end with an alphanumeric character",
              "pool \"node-1\", device \"gpu-0\": bindingFailureConditions[0]: \"a\" is also a"
                  + " binding condition; the lists must not overlap");
    }

    @Test
    void bothListsTogether() {
      assertThat(errors(gpu("gpu-0").bindingConditions(List.of("Ready"), List.of()).build()))
          .containsExactly(
              "pool \"node-1\", device \"gpu-0\": bindingFailureConditions: bindingConditions and"
                  + " bindingFailureConditions must be set together");
      assertThat(errors(gpu("gpu-0").bindingConditions(List.of(), List.of("Failed")).build()))
          .containsExactly(
              "pool \"node-1\", device \"gpu-0\": bindingConditions: bindingConditions and"
                  + " bindingFailureConditions must be set together");
    }
  }

  @Nested
  class RequestPolicies {
    Device shared(CapacityRequestPolicy policy, String capacity) {
      return Device.builder("nic-0")
          .allowMultipleAllocations(true)
          .capacity("bandwidth", DeviceCapacity.of(q(capacity)).withRequestPolicy(policy))
          .build();
    }

    String prefix() {
      return "pool \"node-1\", device \"nic-0\": capacity[\"bandwidth\"].requestPolicy";
    }

    @Test
    void validPoliciesPass() {
      assertThat(
              errors(
                  shared(CapacityRequestPolicy.range(q("1G"), q("1G"), q("10G"), q("1G")), "100G")))
          .isEmpty();
      assertThat(
              errors(
                  shared(
                      CapacityRequestPolicy.validValues(
                          q("1Gi"), List.of(q("1Gi"), q("2Gi"), q("4Gi"))),
                      "8Gi")))
          .isEmpty();
      assertThat(errors(shared(CapacityRequestPolicy.builder().defaultValue(q("1")).build(), "8")))
          .isEmpty();
    }

    @Test
    void onlyWithAllowMultipleAllocations() {
      Device d =
          Device.builder("nic-0")
              .capacity(
                  "bandwidth",
                  DeviceCapacity.of(q("10G"))
                      .withRequestPolicy(
                          CapacityRequestPolicy.validValues(q("1G"), List.of(q("1G")))))
              .build();
      assertThat(errors(d))
          .containsExactly(
              prefix()
                  + ": a request policy is only allowed when the device sets"
                  + " allowMultipleAllocations");
    }

    @Test
    void validValuesRules() {
      List<Quantity> values =
          List.of(
              q("1"), q("2"), q("2"), q("1"), q("5"), q("6"), q("7"), q("8"), q("9"), q("20"),
              q("30"));
      assertThat(errors(shared(CapacityRequestPolicy.validValues(q("3"), values), "10")))
          .containsExactly(
              prefix() + ".validValues: has 11 values, the limit is 10",
              prefix() + ".validValues[2]: duplicate value 2",
              prefix()
                  + ".validValues[3]: 1 is smaller than the value before it; values must be in"
                  + " ascending order",
              prefix() + ".validValues[9]: 20 is larger than the capacity value 10",
              prefix() + ".validValues[10]: 30 is larger than the capacity value 10",
              prefix() + ".default: 3 is not one of validValues");
    }

    @Test
    void validRangeRules() {
      assertThat(errors(shared(CapacityRequestPolicy.range(q("3"), q("2"), q("21"), q("3")), "10")))
          .containsExactly(
              prefix() + ".validRange.max: 21 is larger than the capacity value 10",
              prefix() + ".default: 3 is not min + n * step (min 2, step 3)",
              prefix() + ".validRange.max: 21 is not min + n * step (min 2, step 3)");
      assertThat(errors(shared(CapacityRequestPolicy.range(q("1"), q("5"), q("4"), q("0")), "10")))
          .containsExactly(
              prefix() + ".validRange.max: 4 is smaller than min 5",
              prefix() + ".default: 1 is smaller than validRange.min 5",
              prefix() + ".validRange.step: 0 must be greater than zero");
      assertThat(
              errors(
                  shared(
                      CapacityRequestPolicy.builder()
                          .defaultValue(q("8"))
                          .validRange(CapacityRequestPolicy.Range.of(q("8")).withStep(q("4")))
                          .build(),
                      "10")))
          .containsExactly(
              prefix() + ".validRange.step: min + step = 12 is larger than the capacity value 10");
      assertThat(
              errors(
                  shared(
                      CapacityRequestPolicy.builder()
                          .defaultValue(q("9"))
                          .validRange(CapacityRequestPolicy.Range.of(q("-1")).withMax(q("8")))
                          .build(),
                      "10")))
          .containsExactly(
              prefix() + ".validRange.min: -1 must not be negative",
              prefix() + ".default: 9 is larger than validRange.max 8");
    }

    @Test
    void defaultIsRequiredAndPoliciesAreExclusive() {
      CapacityRequestPolicy both =
          CapacityRequestPolicy.builder()
              .validValues(List.of(q("1")))
              .validRange(CapacityRequestPolicy.Range.of(q("1")))
              .build();
      assertThat(errors(shared(both, "10")))
          .containsExactly(
              prefix() + ": validValues and validRange are mutually exclusive; set one of them",
              prefix() + ".default: is required when validValues or validRange is set");
    }

    @Test
    void fractionalRangesNeedMilliPrecisionAnd137() {
      Pool ok =
          pool(shared(CapacityRequestPolicy.range(q("0.5"), q("0.5"), q("2"), q("0.25")), "4"));
      assertThat(errors(ok)).isEmpty();
      assertThat(warnings(ok))
          .containsExactly(
              prefix()
                  + ".validRange: fractional validRange values need Kubernetes 1.37+"
                  + " (DRAFractionalCapacityRange); older API servers round them to integers");
      assertThat(
              errors(
                  shared(
                      CapacityRequestPolicy.range(q("0.5"), q("0.5"), q("2"), q("0.0001")), "4")))
          .containsExactly(
              prefix()
                  + ".validRange.step: 0.0001 cannot be represented in milli-units (at most 3"
                  + " decimals)");
      assertThat(
              errors(
                  shared(
                      CapacityRequestPolicy.builder()
                          .defaultValue(q("1"))
                          .validRange(CapacityRequestPolicy.Range.of(q("1")).withStep(q("1")))
                          .build(),
                      "20E")))
          .isEmpty();
      assertThat(
              errors(
                  shared(
                      CapacityRequestPolicy.builder()
                          .defaultValue(q("10E"))
                          .validRange(CapacityRequestPolicy.Range.of(q("10E")).withStep(q("1")))
                          .build(),
                      "20E")))
          .containsExactly(
              prefix()
                  + ".validRange.min: 10E is too large for the API server's range arithmetic"
                  + " (int64)",
              prefix()
                  + ".default: 10E is too large for the API server's range arithmetic (int64)");
    }
  }

  @Nested
  class NodeSelection {
    NodeSelector.Requirement req(String key, String op, String... values) {
      return NodeSelector.Requirement.of(key, op, List.of(values));
    }

    @Test
    void perDeviceFieldsOnlyInPerDevicePools() {
      assertThat(errors(gpu("gpu-0").nodeName("node-1").allNodes(true).build()))
          .containsExactly(
              "pool \"node-1\", device \"gpu-0\": nodeName: nodeName, allNodes may only be set on"
                  + " devices of a pool with per-device node selection (PoolScope.perDevice())");
    }

    @Test
    void perDevicePoolsNeedExactlyOnePerDevice() {
      Pool p =
          Pool.builder("fabric")
              .devices(
                  List.of(
                      gpu("a").nodeName("node-1").build(),
                      gpu("b").allNodes(true).build(),
                      gpu("c").nodeSelector(NodeSelector.forNodeName("node-2")).build(),
                      gpu("d").build(),
                      gpu("e").nodeName("Node_1").allNodes(true).build()))
              .scope(PoolScope.perDevice())
              .build();
      assertThat(errors(p))
          .containsExactly(
              "pool \"fabric\", device \"d\": in a pool with per-device node selection every device"
                  + " needs exactly one of nodeName, nodeSelector or allNodes, it has none",
              "pool \"fabric\", device \"e\": in a pool with per-device node selection every device"
                  + " needs exactly one of nodeName, nodeSelector or allNodes, it has nodeName,"
                  + " allNodes",
              "pool \"fabric\", device \"e\": nodeName: node name \"Node_1\" must be a lower-case"
                  + " DNS subdomain (RFC 1123: labels of a-z, 0-9 and '-' separated by '.', each"
                  + " starting and ending with an alphanumeric character)");
    }

    @Test
    void nodeSelectorRules() {
      NodeSelector two =
          NodeSelector.of(
              List.of(
                  NodeSelector.Term.of(List.of(req("zone", "In", "a")), List.of()),
                  NodeSelector.Term.of(
                      List.of(
                          req("zone", "Near", "a"),
                          req("rack", "In"),
                          req("gpu", "Exists", "x"),
                          req("cores", "Gt", "many"),
                          req("bad key!", "DoesNotExist")),
                      List.of(req("metadata.uid", "In", "a", "b"), req("metadata.name", "Gt")))));
      Pool p = Pool.builder("fabric").scope(PoolScope.nodeSelector(two)).build();
      String t = "pool \"fabric\": scope.nodeSelector.nodeSelectorTerms";
      assertThat(errors(p))
          .containsExactly(
              t + ": must have exactly one node selector term, it has 2",
              t
                  + "[1].matchExpressions[0].operator: \"Near\" is not one of DoesNotExist,"
                  + " Exists, Gt, In, Lt, NotIn",
              t + "[1].matchExpressions[1].values: must not be empty for operator In",
              t + "[1].matchExpressions[2].values: must be empty for operator Exists",
              t + "[1].matchExpressions[3].values[0]: must be an integer for operator Gt",
              t
                  + "[1].matchExpressions[4].key: label key \"bad key!\" the name part must"
                  + " consist of alphanumeric characters, '-', '_' or '.', and must start and end"
                  + " with an alphanumeric character",
              t
                  + "[1].matchFields[0].key: \"metadata.uid\" is not supported, only metadata.name"
                  + " is",
              t + "[1].matchFields[0].values: must have exactly one value for a field selector",
              t + "[1].matchFields[1].operator: must be In or NotIn for a field selector",
              t + "[1].matchFields[1].values: must have exactly one value for a field selector");
    }

    @Test
    void aSingleTermSelectorIsValid() {
      Pool p =
          Pool.builder("fabric")
              .devices(List.of(gpu("gpu-0").build()))
              .scope(PoolScope.nodeSelector(NodeSelector.forNodeName("node-1")))
              .build();
      assertThat(errors(p)).isEmpty();
    }
  }

  @Nested
  class NodeAllocatable {
    NodeAllocatableResource mapping(
        String key, String capacityMultiplier, String deviceMultiplier) {
      NodeAllocatableResource.Mapping m = NodeAllocatableResource.Mapping.empty();
      if (key != null) {
        m = m.withCapacityKey(key);
      }
      if (capacityMultiplier != null) {
        m = m.withCapacityMultiplier(q(capacityMultiplier));
      }
      if (deviceMultiplier != null) {
        m = m.withDeviceMultiplier(q(deviceMultiplier));
      }
      return NodeAllocatableResource.of(m);
    }

    @Test
    void rules() {
      Device d =
          gpu("gpu-0")
              .nodeAllocatableResource("cpu", mapping("memory", "1", null))
              .nodeAllocatableResource("hugepages-2Mi", mapping(null, null, "2"))
              .nodeAllocatableResource("nvidia.com/gpu", mapping(null, null, "1"))
              .nodeAllocatableResource("memory", mapping("hbm", null, "-1"))
              .nodeAllocatableResource("ephemeral-storage", mapping(null, "2", null))
              .nodeAllocatableResource("hugepages-1Gi", NodeAllocatableResource.empty())
              .nodeAllocatableResource(
                  "hugepages-x",
                  NodeAllocatableResource.of(NodeAllocatableResource.Overhead.perPod(q("-1"))))
              .build();
      String p = "pool \"node-1\", device \"gpu-0\": nodeAllocatableResources";
      assertThat(errors(d))
          .containsExactly(
              p
                  + "[\"ephemeral-storage\"].mapping.capacityKey: is required when capacityMultiplier"
                  + " is set",
              p + "[\"hugepages-1Gi\"]: at least one of mapping and overhead must be set",
              p
                  + "[\"hugepages-x\"]: \"hugepages-x\" is not a node allocatable resource (cpu,"
                  + " memory, ephemeral-storage or hugepages-<size>)",
              p + "[\"hugepages-x\"].overhead.perPod: -1 must not be negative",
              p
                  + "[\"memory\"].mapping: set either capacityKey with capacityMultiplier, or"
                  + " deviceMultiplier, not both",
              p + "[\"memory\"].mapping.capacityKey: \"hbm\" is not one of the device's capacities",
              p + "[\"memory\"].mapping.capacityMultiplier: is required when capacityKey is set",
              p + "[\"memory\"].mapping.deviceMultiplier: -1 must be greater than zero",
              p
                  + "[\"nvidia.com/gpu\"]: \"nvidia.com/gpu\" is not a node allocatable resource"
                  + " (cpu, memory, ephemeral-storage or hugepages-<size>)");
    }
  }

  @Nested
  class SkipNodeOperationsAndPartitionType {
    Device slot(String name, DeviceAttribute profile) {
      Device.Builder b =
          gpu(name)
              .consumesCounters(
                  DeviceCounterConsumption.of("gpu-0", Map.of("memory", Counter.of(q("1")))));
      return (profile == null ? b : b.attribute("profile", profile)).build();
    }

    Pool.Builder partitioned(Device... devices) {
      return Pool.builder("node-1")
          .devices(List.of(devices))
          .counterSets(List.of(CounterSet.of("gpu-0", Map.of("memory", Counter.of(q("8"))))));
    }

    @Test
    void prepareIsSkippedOnlyWithUnprepare() {
      assertThat(
              errors(
                  Pool.builder("node-1")
                      .skipNodeOperations(SkipNodeOperation.NODE_PREPARE_RESOURCES)
                      .build()))
          .containsExactly(
              "pool \"node-1\": skipNodeOperations: NodePrepareResources cannot be skipped unless"
                  + " NodeUnprepareResources is also skipped (or * is)");
      for (SkipNodeOperation[] ok :
          List.of(
              new SkipNodeOperation[] {
                SkipNodeOperation.NODE_PREPARE_RESOURCES, SkipNodeOperation.NODE_UNPREPARE_RESOURCES
              },
              new SkipNodeOperation[] {
                SkipNodeOperation.NODE_PREPARE_RESOURCES, SkipNodeOperation.ALL
              },
              new SkipNodeOperation[] {SkipNodeOperation.NODE_UNPREPARE_RESOURCES},
              new SkipNodeOperation[] {SkipNodeOperation.ALL})) {
        assertThat(errors(Pool.builder("node-1").skipNodeOperations(ok).build())).isEmpty();
      }
    }

    @Test
    void partitionTypeNamesAStringAttributeOfEveryDeviceConsumingCounters() {
      // Full name, and the bare name in the driver's domain; a plain device needs none.
      assertThat(
              errors(
                  partitioned(slot("a", DeviceAttribute.of("1g")), gpu("plain").build())
                      .partitionTypeAttribute(DRIVER + "/profile")
                      .build()))
          .isEmpty();
      Device full =
          gpu("b")
              .attribute(DRIVER + "/profile", "2g")
              .consumesCounters(
                  DeviceCounterConsumption.of("gpu-0", Map.of("memory", Counter.of(q("1")))))
              .build();
      assertThat(errors(partitioned(full).partitionTypeAttribute(DRIVER + "/profile").build()))
          .isEmpty();
      assertThat(
              errors(
                  partitioned(slot("a", null), slot("b", DeviceAttribute.of(2)))
                      .partitionTypeAttribute(DRIVER + "/profile")
                      .build()))
          .containsExactly(
              "pool \"node-1\", device \"a\": attributes[\"gpu.example.com/profile\"]: is"
                  + " required: the device consumes counters and the pool's partitionTypeAttribute"
                  + " names this attribute",
              "pool \"node-1\", device \"b\": attributes[\"gpu.example.com/profile\"]: must be a"
                  + " string value because the pool's partitionTypeAttribute names this attribute");
    }

    @Test
    void partitionTypeIsAFullyQualifiedNameOnAPoolWithCounterConsumers() {
      assertThat(
              errors(
                  partitioned(slot("a", DeviceAttribute.of("1g")))
                      .partitionTypeAttribute("profile")
                      .build()))
          .containsExactly(
              "pool \"node-1\": partitionTypeAttribute: \"profile\" must be a domain and a name"
                  + " separated by a slash, e.g. gpu.example.com/profile");
      assertThat(
              errors(
                  partitioned(slot("a", DeviceAttribute.of("1g")))
                      .partitionTypeAttribute(DRIVER + "/not-an-identifier")
                      .build()))
          .singleElement()
          .asString()
          .contains("must be a C identifier");
      assertThat(
              errors(
                  Pool.builder("node-1")
                      .devices(List.of(gpu("plain").build()))
                      .partitionTypeAttribute(DRIVER + "/profile")
                      .build()))
          .containsExactly(
              "pool \"node-1\": partitionTypeAttribute: may only be set on a pool with devices"
                  + " that consume counters (the API server allows it only on slices declaring such"
                  + " devices)");
    }
  }

  @Test
  void unknownDeviceFieldsAreAWarning() throws Exception {
    Device d =
        KubeJson.mapper().readValue("{\"name\":\"gpu-0\",\"futureField\":[\"a\"]}", Device.class);
    Pool p = pool(d);
    assertThat(errors(p)).isEmpty();
    assertThat(warnings(p)).hasSize(1);
    assertThat(warnings(p).get(0))
        .startsWith("pool \"node-1\", device \"gpu-0\": futureField: is not");
  }

  /** Helpers to build long lists. */
  static final class LongList {
    static List<Long> of(int n) {
      List<Long> l = new ArrayList<>();
      for (long i = 0; i < n; i++) {
        l.add(i);
      }
      return l;
    }
  }
}
