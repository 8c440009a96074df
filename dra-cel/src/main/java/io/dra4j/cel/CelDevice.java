package io.dra4j.cel;

import io.dra4j.api.device.Device;
import io.dra4j.api.device.DeviceAttribute;
import io.dra4j.api.device.DeviceCapacity;
import io.dra4j.api.device.Quantity;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * A device as CEL selectors see it, built once and reusable for any number of selectors (an
 * allocator evaluates class and request selectors against the same device).
 *
 * <p>The view is Kubernetes': {@code device.driver}, {@code device.attributes["<domain>"].<id>},
 * {@code device.capacity["<domain>"].<id>} and {@code device.allowMultipleAllocations}. A key
 * without a domain ({@code memory}) is in the driver's domain; {@code
 * resource.kubernetes.io/pcieRoot} is id {@code pcieRoot} in domain {@code resource.kubernetes.io}.
 * Values: int → int, bool → bool, string → string, version → {@link Semver}, the list forms → lists
 * of those, capacities → {@link Quantity}.
 *
 * <p>Immutable and thread-safe.
 */
public final class CelDevice {

  private final String driver;
  private final String deviceName;
  private final Map<String, Object> activation;
  private final Optional<String> problem;

  private CelDevice(
      String driver, String deviceName, Map<String, Object> variable, Optional<String> problem) {
    this.driver = driver;
    this.deviceName = deviceName;
    this.activation = Map.of("device", variable);
    this.problem = problem;
  }

  /**
   * The CEL view of a device of the given driver. Never fails: a version attribute that is not
   * valid semver makes every evaluation against this device fail instead (as in Kubernetes, which
   * converts all attributes before evaluating).
   */
  public static CelDevice of(String driver, Device device) {
    Objects.requireNonNull(driver, "driver");
    Objects.requireNonNull(device, "device");
    List<String> problems = new ArrayList<>();
    Map<String, Map<String, Object>> attributes = new HashMap<>();
    for (Map.Entry<String, DeviceAttribute> e : device.attributes().entrySet()) {
      if (e.getValue() instanceof DeviceAttribute.UnknownValue) {
        // A kind of value a newer Kubernetes added: CEL here has no type for it, so the device is
        // seen without the attribute rather than not at all.
        continue;
      }
      Object value;
      try {
        value = celValue(e.getValue());
      } catch (IllegalArgumentException ex) {
        problems.add("attribute \"" + e.getKey() + "\": " + ex.getMessage());
        continue;
      }
      put(attributes, driver, e.getKey(), value);
    }
    Map<String, Map<String, Quantity>> capacity = new HashMap<>();
    for (Map.Entry<String, DeviceCapacity> e : device.capacity().entrySet()) {
      put(capacity, driver, e.getKey(), e.getValue().value());
    }
    Map<String, Object> variable =
        Map.of(
            "driver",
            driver,
            "attributes",
            new DomainMap<>(freeze(attributes)),
            "capacity",
            new DomainMap<>(freeze(capacity)),
            "allowMultipleAllocations",
            device.allowMultipleAllocations());
    Optional<String> problem =
        problems.isEmpty() ? Optional.empty() : Optional.of(String.join("; ", problems));
    return new CelDevice(driver, device.name(), variable, problem);
  }

  private static <V> void put(
      Map<String, Map<String, V>> domains, String driver, String qualifiedName, V value) {
    int slash = qualifiedName.indexOf('/');
    String domain = slash < 0 ? driver : qualifiedName.substring(0, slash);
    String id = slash < 0 ? qualifiedName : qualifiedName.substring(slash + 1);
    domains.computeIfAbsent(domain, d -> new HashMap<>()).put(id, value);
  }

  private static <V> Map<String, Map<String, V>> freeze(Map<String, Map<String, V>> domains) {
    Map<String, Map<String, V>> frozen = new HashMap<>();
    domains.forEach((domain, ids) -> frozen.put(domain, Map.copyOf(ids)));
    return frozen;
  }

  private static Object celValue(DeviceAttribute attribute) {
    if (attribute instanceof DeviceAttribute.VersionValue v) {
      return Semver.parse(v.value());
    }
    if (attribute instanceof DeviceAttribute.VersionValues vs) {
      List<Semver> versions = new ArrayList<>(vs.value().size());
      for (String v : vs.value()) {
        versions.add(Semver.parse(v));
      }
      return List.copyOf(versions);
    }
    // int → Long, bool → Boolean, string → String, and immutable lists of those.
    return attribute.javaValue();
  }

  /** The driver the device belongs to ({@code device.driver}). */
  public String driver() {
    return driver;
  }

  /** The device name, used in error messages. */
  public String deviceName() {
    return deviceName;
  }

  /** The CEL variables: {@code device} and nothing else. */
  Map<String, Object> activation() {
    return activation;
  }

  /** Why this device cannot be evaluated at all, if it cannot. */
  Optional<String> problem() {
    return problem;
  }
}
