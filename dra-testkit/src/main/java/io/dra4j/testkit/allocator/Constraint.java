package io.dra4j.testkit.allocator;

import io.dra4j.api.device.Device;
import io.dra4j.api.device.DeviceAttribute;
import io.dra4j.kube.DeviceConstraint;
import io.dra4j.kube.RequestNames;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * A claim constraint during the search. Devices are added and removed in stack order, so the state
 * after a removal is recomputed from the devices still held.
 *
 * <p>matchAttribute: every device of the constrained requests has the attribute and the values
 * share at least one element (a scalar is a one-element set, so for scalars this means "equal").
 * distinctAttribute: every device has the attribute and the value sets are pairwise disjoint.
 * Values of different types never match ({@code "1.0.0"} as string and as version differ).
 */
final class Constraint {
  private final Set<String> requests;
  private final String attribute;
  private final boolean match;
  private final Deque<Set<String>> held = new ArrayDeque<>();
  private final Deque<Boolean> applied = new ArrayDeque<>();

  private Constraint(Set<String> requests, String attribute, boolean match) {
    this.requests = requests;
    this.attribute = attribute;
    this.match = match;
  }

  /** The constraint, or empty for a kind this allocator does not know. */
  static Optional<Constraint> of(DeviceConstraint c) {
    Set<String> requests = Set.copyOf(c.requests());
    if (c.matchAttribute().isPresent()) {
      return Optional.of(new Constraint(requests, c.matchAttribute().get(), true));
    }
    if (c.distinctAttribute().isPresent()) {
      return Optional.of(new Constraint(requests, c.distinctAttribute().get(), false));
    }
    return Optional.empty();
  }

  String describe() {
    String kind = match ? "matchAttribute " : "distinctAttribute ";
    return kind
        + attribute
        + (requests.isEmpty() ? " over all requests" : " over " + new ArrayList<>(requests));
  }

  private boolean appliesTo(String request, String subRequest) {
    return RequestNames.matches(
        requests, RequestNames.of(request, Optional.of(subRequest).filter(s -> !s.isEmpty())));
  }

  /** Adds the device if the constraint allows it; a rejected device leaves no trace. */
  boolean add(String request, String subRequest, String driver, Device device) {
    if (!appliesTo(request, subRequest)) {
      applied.push(false);
      return true;
    }
    Optional<Set<String>> values = values(driver, device, attribute);
    if (values.isEmpty()) {
      return false;
    }
    Set<String> v = values.get();
    if (match) {
      Set<String> common = common();
      if (common != null) {
        Set<String> next = new LinkedHashSet<>(common);
        next.retainAll(v);
        if (next.isEmpty()) {
          return false;
        }
      }
    } else {
      for (Set<String> other : held) {
        for (String x : v) {
          if (other.contains(x)) {
            return false;
          }
        }
      }
    }
    held.push(v);
    applied.push(true);
    return true;
  }

  /** Undoes the latest successful {@link #add}. */
  void remove() {
    if (applied.pop()) {
      held.pop();
    }
  }

  /** The intersection of everything held, or null when nothing is held. */
  private Set<String> common() {
    Set<String> common = null;
    for (Set<String> s : held) {
      if (common == null) {
        common = new LinkedHashSet<>(s);
      } else {
        common.retainAll(s);
      }
    }
    return common;
  }

  /**
   * The attribute's values as typed tokens. The name is fully qualified; a device may publish
   * attributes of its own driver's domain without the domain.
   */
  static Optional<Set<String>> values(String driver, Device device, String qualifiedName) {
    DeviceAttribute a = device.attributes().get(qualifiedName);
    if (a == null) {
      int slash = qualifiedName.indexOf('/');
      if (slash >= 0 && qualifiedName.substring(0, slash).equals(driver)) {
        a = device.attributes().get(qualifiedName.substring(slash + 1));
      }
    }
    if (a == null) {
      return Optional.empty();
    }
    String type = typeOf(a);
    Set<String> tokens = new LinkedHashSet<>();
    Object v = a.javaValue();
    if (v instanceof List<?> list) {
      for (Object o : list) {
        tokens.add(type + ":" + o);
      }
    } else {
      tokens.add(type + ":" + v);
    }
    return Optional.of(tokens);
  }

  private static final Map<Class<?>, String> TYPES = new HashMap<>();

  static {
    TYPES.put(DeviceAttribute.IntValue.class, "int");
    TYPES.put(DeviceAttribute.IntValues.class, "int");
    TYPES.put(DeviceAttribute.BoolValue.class, "bool");
    TYPES.put(DeviceAttribute.BoolValues.class, "bool");
    TYPES.put(DeviceAttribute.StringValue.class, "string");
    TYPES.put(DeviceAttribute.StringValues.class, "string");
    TYPES.put(DeviceAttribute.VersionValue.class, "version");
    TYPES.put(DeviceAttribute.VersionValues.class, "version");
  }

  private static String typeOf(DeviceAttribute a) {
    return TYPES.getOrDefault(a.getClass(), a.getClass().getSimpleName());
  }
}
