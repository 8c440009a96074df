package io.dra4j.nvidia;

import static org.assertj.core.api.Assertions.assertThat;

import io.dra4j.api.device.CounterSet;
import io.dra4j.api.device.Device;
import io.dra4j.api.device.DeviceAttribute;
import io.dra4j.api.device.DeviceCounterConsumption;
import io.dra4j.api.provider.Inventory;
import io.dra4j.api.provider.Pool;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * The resource.k8s.io/v1 ResourceSlice validation rules a device must pass
 * (shared/reference/resource-api-v1.md §1.4-§1.9), checked independently of the code under test.
 */
final class ApiLimits {
  private ApiLimits() {}

  private static final Pattern DNS_LABEL = Pattern.compile("[a-z0-9]([-a-z0-9]*[a-z0-9])?");
  private static final Pattern C_IDENTIFIER = Pattern.compile("[A-Za-z_][A-Za-z0-9_]*");
  private static final Pattern DNS_SUBDOMAIN =
      Pattern.compile("[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*");
  private static final Pattern SEMVER =
      Pattern.compile(
          "(0|[1-9]\\d*)\\.(0|[1-9]\\d*)\\.(0|[1-9]\\d*)"
              + "(?:-((?:0|[1-9]\\d*|\\d*[a-zA-Z-][0-9a-zA-Z-]*)"
              + "(?:\\.(?:0|[1-9]\\d*|\\d*[a-zA-Z-][0-9a-zA-Z-]*))*))?"
              + "(?:\\+([0-9a-zA-Z-]+(?:\\.[0-9a-zA-Z-]+)*))?");

  static void check(Inventory inventory) {
    for (Pool pool : inventory.pools()) {
      Map<String, CounterSet> sets = new HashMap<>();
      for (CounterSet cs : pool.counterSets()) {
        assertThat(cs.name()).matches(DNS_LABEL).hasSizeLessThanOrEqualTo(63);
        assertThat(cs.counters()).isNotEmpty().hasSizeLessThanOrEqualTo(32);
        cs.counters().keySet().forEach(k -> assertThat(k).matches(DNS_LABEL));
        assertThat(sets.put(cs.name(), cs)).as("duplicate counter set %s", cs.name()).isNull();
      }
      Set<String> names = new HashSet<>();
      for (Device d : pool.devices()) {
        check(d, sets);
        assertThat(names.add(d.name())).as("duplicate device %s", d.name()).isTrue();
      }
    }
  }

  static void check(Device d, Map<String, CounterSet> sets) {
    String n = d.name();
    assertThat(n).as("device name").matches(DNS_LABEL).hasSizeLessThanOrEqualTo(63);
    assertThat(d.attributes().size() + d.capacity().size())
        .as("%s: attributes + capacities", n)
        .isLessThanOrEqualTo(32);
    assertThat(d.attributes().values().stream().mapToInt(DeviceAttribute::valueCount).sum())
        .as("%s: attribute values", n)
        .isLessThanOrEqualTo(48);
    d.attributes().keySet().forEach(k -> qualifiedName(n, k));
    d.capacity().keySet().forEach(k -> qualifiedName(n, k));
    d.attributes()
        .forEach(
            (k, v) -> {
              if (v instanceof DeviceAttribute.StringValue s) {
                assertThat(s.value().getBytes(StandardCharsets.UTF_8).length)
                    .as("%s: %s length", n, k)
                    .isLessThanOrEqualTo(64);
              }
              if (v instanceof DeviceAttribute.VersionValue s) {
                assertThat(s.value())
                    .as("%s: %s", n, k)
                    .matches(SEMVER)
                    .hasSizeLessThanOrEqualTo(64);
              }
            });
    assertThat(d.consumesCounters()).as("%s: counter consumptions", n).hasSizeLessThanOrEqualTo(2);
    Set<String> consumed = new HashSet<>();
    for (DeviceCounterConsumption c : d.consumesCounters()) {
      assertThat(consumed.add(c.counterSet())).isTrue();
      CounterSet set = sets.get(c.counterSet());
      assertThat(set).as("%s: counter set %s exists", n, c.counterSet()).isNotNull();
      assertThat(c.counters()).isNotEmpty().hasSizeLessThanOrEqualTo(32);
      c.counters()
          .forEach(
              (k, v) -> {
                assertThat(set.counters()).as("%s: counter %s exists", n, k).containsKey(k);
                assertThat(v.value()).isLessThanOrEqualTo(set.counters().get(k).value());
              });
    }
  }

  private static void qualifiedName(String device, String key) {
    int slash = key.indexOf('/');
    String id = slash < 0 ? key : key.substring(slash + 1);
    if (slash >= 0) {
      String domain = key.substring(0, slash);
      assertThat(domain).as("%s: domain of %s", device, key).matches(DNS_SUBDOMAIN);
      assertThat(domain.length()).isLessThanOrEqualTo(63);
    }
    assertThat(id).as("%s: %s", device, key).matches(C_IDENTIFIER).hasSizeLessThanOrEqualTo(32);
  }
}
