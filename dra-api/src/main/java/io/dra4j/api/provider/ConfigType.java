package io.dra4j.api.provider;

import java.util.Objects;

/**
 * One opaque configuration type a provider accepts in claims and DeviceClasses, e.g. {@code
 * gpu.example.com/v1alpha1, GpuConfig}. The runtime decodes matching configs strictly (unknown
 * fields and a wrong apiVersion or kind are errors naming the claim, request and field) into {@code
 * type} with Jackson, so {@code type} is usually a record.
 *
 * @param apiVersion the {@code apiVersion} the parameters must carry
 * @param kind the {@code kind} the parameters must carry
 * @param type the Java type to decode into
 * @param <C> the config type
 */
public record ConfigType<C>(String apiVersion, String kind, Class<C> type) {
  public ConfigType {
    Objects.requireNonNull(apiVersion, "apiVersion");
    Objects.requireNonNull(kind, "kind");
    Objects.requireNonNull(type, "type");
  }
}
