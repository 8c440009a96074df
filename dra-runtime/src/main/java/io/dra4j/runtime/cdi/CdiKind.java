package io.dra4j.runtime.cdi;

import java.util.Objects;

/**
 * A CDI kind, {@code vendor/class}: the namespace of the device names in a spec and the prefix of
 * every qualified device id ({@code vendor/class=name}).
 *
 * <p>Both parts follow the strictest parser in use (CDI library v0.5.2, also vendored in podman
 * 4.3): the vendor matches {@code [A-Za-z][A-Za-z0-9._-]*[A-Za-z0-9]}, the class the same without a
 * dot. One-character names are rejected because they crash the reference library and podman (one
 * such file breaks every container start on the node). A dot in the class is rejected rather than
 * answered with a CDI 0.6.0 spec, because v0.5-era runtimes cannot load 0.6.0 specs at all.
 *
 * @param vendor e.g. {@code k8s.gpu.example.com}
 * @param cls the class, e.g. {@code claim}
 */
public record CdiKind(String vendor, String cls) {

  /** The class of the per-claim transient specs unless configured otherwise. */
  public static final String DEFAULT_CLASS = "claim";

  public CdiKind {
    Objects.requireNonNull(vendor, "vendor");
    Objects.requireNonNull(cls, "class");
    if (!CdiRules.VENDOR.matcher(vendor).matches()) {
      throw new IllegalArgumentException(
          "CDI vendor \""
              + vendor
              + "\" is invalid: it must be at least 2 characters, start with a letter, end with a"
              + " letter or digit and contain only letters, digits, '.', '_' or '-'"
              + " (a one-character vendor crashes the CDI library and podman)");
    }
    if (cls.indexOf('.') >= 0) {
      throw new IllegalArgumentException(
          "CDI class \""
              + cls
              + "\" contains a dot: that needs CDI spec 0.6.0, which runtimes built on CDI"
              + " library 0.5 (e.g. podman 4.3) cannot load; use a class without a dot");
    }
    if (!CdiRules.CLASS.matcher(cls).matches()) {
      throw new IllegalArgumentException(
          "CDI class \""
              + cls
              + "\" is invalid: it must be at least 2 characters, start with a letter, end with a"
              + " letter or digit and contain only letters, digits, '_' or '-'"
              + " (a one-character class crashes the CDI library and podman)");
    }
  }

  /** {@code vendor} and {@code class}, validated. */
  public static CdiKind of(String vendor, String cls) {
    return new CdiKind(vendor, cls);
  }

  /**
   * The default kind of a driver's claim specs, {@code k8s.<driverName>/claim}, in the style of
   * NVIDIA's {@code k8s.gpu.nvidia.com/claim}.
   */
  public static CdiKind forDriver(String driverName) {
    Objects.requireNonNull(driverName, "driverName");
    if (driverName.isEmpty()) {
      throw new IllegalArgumentException("driver name must not be empty");
    }
    return new CdiKind("k8s." + driverName, DEFAULT_CLASS);
  }

  /**
   * Parses {@code vendor/class}.
   *
   * @throws IllegalArgumentException when there is no single '/' or a part is invalid
   */
  public static CdiKind parse(String kind) {
    int slash = kind.indexOf('/');
    if (slash < 0 || kind.indexOf('/', slash + 1) >= 0) {
      throw new IllegalArgumentException(
          "CDI kind \"" + kind + "\" must have the form vendor/class with exactly one '/'");
    }
    return new CdiKind(kind.substring(0, slash), kind.substring(slash + 1));
  }

  /** The fully qualified id {@code vendor/class=name} of a device in a spec of this kind. */
  public String qualify(String deviceName) {
    CdiRules.checkDeviceName(deviceName);
    return vendor + "/" + cls + "=" + deviceName;
  }

  /**
   * The file name of a transient spec, {@code vendor-class_<id>.json}, as the CDI library's {@code
   * GenerateTransientSpecName} builds it ('/' in the id replaced by '_').
   */
  public String transientSpecFileName(String transientId) {
    return transientSpecPrefix() + transientId.replace('/', '_') + ".json";
  }

  /** {@code vendor-class_}: the start of every transient spec file name of this kind. */
  String transientSpecPrefix() {
    return vendor + "-" + cls + "_";
  }

  /** {@code vendor/class}. */
  @Override
  public String toString() {
    return vendor + "/" + cls;
  }
}
