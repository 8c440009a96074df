package io.dra4j.cel;

import java.util.AbstractMap;
import java.util.Map;
import java.util.Set;

/**
 * {@code device.attributes} and {@code device.capacity}: domain to (id to value).
 *
 * <p>Kubernetes semantics, which a plain map cannot give: looking up a domain the device does not
 * have yields an empty map (so {@code device.attributes["other.com"].x} fails with "no such key" on
 * {@code x}, and {@code "x" in device.attributes["other.com"]} is false), while {@code "other.com"
 * in device.attributes} is false. The CEL runtime reads maps through {@link #get} and {@link
 * #containsKey} for both indexing and field selection, so both report every string key as present;
 * the {@code in} operator is rebound to {@link #hasDomain} (see {@link KubernetesFunctions}).
 * Iteration and {@code size()} see only the real domains. Not a general-purpose map.
 */
final class DomainMap<V> extends AbstractMap<String, Map<String, V>> {

  private final Map<String, Map<String, V>> domains;

  DomainMap(Map<String, Map<String, V>> domains) {
    this.domains = Map.copyOf(domains);
  }

  @Override
  public Map<String, V> get(Object key) {
    Map<String, V> ids = domains.get(key);
    if (ids == null && key instanceof String) {
      return Map.of();
    }
    return ids;
  }

  @Override
  public boolean containsKey(Object key) {
    return key instanceof String;
  }

  /** Whether the device has at least one attribute (or capacity) in this domain. */
  boolean hasDomain(Object key) {
    return key instanceof String && domains.containsKey(key);
  }

  @Override
  public Set<Entry<String, Map<String, V>>> entrySet() {
    return domains.entrySet();
  }

  @Override
  public int size() {
    return domains.size();
  }
}
