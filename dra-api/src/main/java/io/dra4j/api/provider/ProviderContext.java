package io.dra4j.api.provider;

import java.nio.file.Path;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.TreeMap;

/**
 * What the runtime tells a provider about its surroundings. File-system roots are configurable so
 * discovery can run on a fake sysfs tree in tests, or on a host mount inside a container. The
 * runtime builds it; a provider's tests use {@link #builder(String, String)}.
 */
public final class ProviderContext {
  private final String driverName;
  private final String nodeName;
  private final Map<String, String> config;
  private final Path sysfsRoot;
  private final Path devRoot;
  private final Path pluginDataDir;
  private final Runnable inventoryListener;

  private ProviderContext(Builder b) {
    this.driverName = Objects.requireNonNull(b.driverName, "driverName");
    this.nodeName = Objects.requireNonNull(b.nodeName, "nodeName");
    this.config = Map.copyOf(b.config);
    this.sysfsRoot = Objects.requireNonNull(b.sysfsRoot, "sysfsRoot");
    this.devRoot = Objects.requireNonNull(b.devRoot, "devRoot");
    this.pluginDataDir = Objects.requireNonNull(b.pluginDataDir, "pluginDataDir");
    this.inventoryListener = Objects.requireNonNull(b.inventoryListener, "inventoryListener");
  }

  /** The DRA driver name, e.g. {@code gpu.example.com}. */
  public String driverName() {
    return driverName;
  }

  /** The node this driver runs on; node-local pools are usually named after it. */
  public String nodeName() {
    return nodeName;
  }

  /** Provider settings from flags, environment or a config file ({@code devices=8}). */
  public Map<String, String> config() {
    return config;
  }

  /** Where the host's {@code /sys} is visible. */
  public Path sysfsRoot() {
    return sysfsRoot;
  }

  /** Where the host's {@code /dev} is visible (required device nodes are checked here). */
  public Path devRoot() {
    return devRoot;
  }

  /** A private directory that survives restarts. */
  public Path pluginDataDir() {
    return pluginDataDir;
  }

  /** Notified by {@link #inventoryChanged()}. */
  public Runnable inventoryListener() {
    return inventoryListener;
  }

  /** A setting, if present. */
  public Optional<String> config(String key) {
    return Optional.ofNullable(config.get(key));
  }

  /**
   * An integer setting.
   *
   * @throws IllegalArgumentException naming the key when the value is not an integer
   */
  public int configInt(String key, int defaultValue) {
    String v = config.get(key);
    if (v == null) {
      return defaultValue;
    }
    try {
      return Integer.parseInt(v.trim());
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException("setting " + key + "=\"" + v + "\" must be an integer", e);
    }
  }

  /**
   * A boolean setting ({@code true}/{@code false}).
   *
   * @throws IllegalArgumentException naming the key when the value is neither
   */
  public boolean configBool(String key, boolean defaultValue) {
    String v = config.get(key);
    if (v == null) {
      return defaultValue;
    }
    if (v.equalsIgnoreCase("true") || v.equalsIgnoreCase("false")) {
      return Boolean.parseBoolean(v);
    }
    throw new IllegalArgumentException("setting " + key + "=\"" + v + "\" must be true or false");
  }

  /**
   * Tells the runtime the devices changed (hot-plug, a partition created): it calls {@link
   * DeviceProvider#discover} again and republishes what changed.
   */
  public void inventoryChanged() {
    inventoryListener.run();
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof ProviderContext c
        && driverName.equals(c.driverName)
        && nodeName.equals(c.nodeName)
        && config.equals(c.config)
        && sysfsRoot.equals(c.sysfsRoot)
        && devRoot.equals(c.devRoot)
        && pluginDataDir.equals(c.pluginDataDir)
        && inventoryListener.equals(c.inventoryListener);
  }

  @Override
  public int hashCode() {
    return Objects.hash(
        driverName, nodeName, config, sysfsRoot, devRoot, pluginDataDir, inventoryListener);
  }

  @Override
  public String toString() {
    return "ProviderContext[driverName="
        + driverName
        + ", nodeName="
        + nodeName
        + ", config="
        + config
        + ", sysfsRoot="
        + sysfsRoot
        + ", devRoot="
        + devRoot
        + ", pluginDataDir="
        + pluginDataDir
        + "]";
  }

  /** Where the host's {@code /sys} is visible unless the driver is told otherwise. */
  public static final Path DEFAULT_SYSFS_ROOT = Path.of("/sys");

  /** Where the host's {@code /dev} is visible unless the driver is told otherwise. */
  public static final Path DEFAULT_DEV_ROOT = Path.of("/dev");

  /** A context with the host's own roots and a temporary plugin directory, for tests. */
  public static Builder builder(String driverName, String nodeName) {
    return new Builder(driverName, nodeName);
  }

  /** Builds a {@link ProviderContext}. */
  public static final class Builder {
    private final String driverName;
    private final String nodeName;
    private final Map<String, String> config = new TreeMap<>();
    private Path sysfsRoot = DEFAULT_SYSFS_ROOT;
    private Path devRoot = DEFAULT_DEV_ROOT;
    private Path pluginDataDir = Path.of(System.getProperty("java.io.tmpdir"));
    private Runnable inventoryListener = () -> {};

    private Builder(String driverName, String nodeName) {
      this.driverName = driverName;
      this.nodeName = nodeName;
    }

    public Builder config(String key, String value) {
      config.put(key, value);
      return this;
    }

    public Builder config(Map<String, String> values) {
      config.putAll(values);
      return this;
    }

    public Builder sysfsRoot(Path value) {
      sysfsRoot = value;
      return this;
    }

    public Builder devRoot(Path value) {
      devRoot = value;
      return this;
    }

    public Builder pluginDataDir(Path value) {
      pluginDataDir = value;
      return this;
    }

    public Builder inventoryListener(Runnable value) {
      inventoryListener = value;
      return this;
    }

    public ProviderContext build() {
      return new ProviderContext(this);
    }
  }
}
