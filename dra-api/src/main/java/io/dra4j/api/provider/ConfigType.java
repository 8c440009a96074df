package io.dra4j.api.provider;

import java.util.Objects;

/**
 * One opaque configuration type a provider accepts in claims and DeviceClasses, e.g. {@code
 * gpu.example.com/v1alpha1, GpuConfig}. The runtime decodes matching configs strictly (unknown
 * fields and a wrong apiVersion or kind are errors naming the claim, request and field) into {@code
 * type} with Jackson, so {@code type} is usually a record.
 *
 * @param <C> the config type
 */
public final class ConfigType<C> {
  private final String apiVersion;
  private final String kind;
  private final Class<C> type;

  private ConfigType(String apiVersion, String kind, Class<C> type) {
    this.apiVersion = Objects.requireNonNull(apiVersion, "apiVersion");
    this.kind = Objects.requireNonNull(kind, "kind");
    this.type = Objects.requireNonNull(type, "type");
  }

  /**
   * A config type.
   *
   * @param apiVersion the {@code apiVersion} the parameters must carry
   * @param kind the {@code kind} the parameters must carry
   * @param type the Java type to decode into
   */
  public static <C> ConfigType<C> of(String apiVersion, String kind, Class<C> type) {
    return new ConfigType<>(apiVersion, kind, type);
  }

  /** The {@code apiVersion} the parameters must carry. */
  public String apiVersion() {
    return apiVersion;
  }

  /** The {@code kind} the parameters must carry. */
  public String kind() {
    return kind;
  }

  /** The Java type to decode into. */
  public Class<C> type() {
    return type;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof ConfigType<?> c
        && apiVersion.equals(c.apiVersion)
        && kind.equals(c.kind)
        && type.equals(c.type);
  }

  @Override
  public int hashCode() {
    return Objects.hash(apiVersion, kind, type);
  }

  @Override
  public String toString() {
    return "ConfigType[apiVersion=" + apiVersion + ", kind=" + kind + ", type=" + type + "]";
  }
}
