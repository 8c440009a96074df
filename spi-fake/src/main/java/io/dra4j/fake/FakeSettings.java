package io.dra4j.fake;

import io.dra4j.api.device.PciBusId;
import io.dra4j.api.device.Quantity;
import io.dra4j.api.provider.ProviderContext;
import io.dra4j.api.provider.SkipNodeOperation;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.EnumSet;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The provider's settings, parsed and checked once per discovery. Every rejection names the key,
 * the value and the rule.
 */
record FakeSettings(
    int devices,
    String type,
    Quantity memory,
    int partitions,
    List<String> partitionModes,
    boolean consumable,
    boolean fractionalCompute,
    List<List<String>> pciBusIds,
    Optional<String> deviceNode,
    Optional<Duration> flapPeriod,
    String flapDevice,
    Optional<Path> healthFile,
    Optional<Duration> healthTimeout,
    Set<String> attachDevices,
    Set<String> attachFailures,
    Duration attachDelay,
    boolean networkData,
    Set<SkipNodeOperation> skipNodeOperations) {

  /** Enough for the node benchmark's publish of 10,000 devices. */
  static final int MAX_DEVICES = 16384;

  static final int MAX_PARTITIONS = 64;
  static final int MAX_PARTITION_MODES = 4;

  /** Mode names end up in device names {@code gpu-<i>-<mode>-<j>}, at most 63 characters. */
  static final int MAX_MODE_LENGTH = 20;

  /** The value of {@code attach-devices} that means every device. */
  static final String ALL = "all";

  static final String PARTITION_TYPE_SUFFIX = "-partition";
  static final Duration MIN_FLAP_PERIOD = Duration.ofMillis(10);

  private static final Pattern SHORT_DURATION = Pattern.compile("([0-9]{1,9})(ms|s|m|h)");
  private static final Pattern MODE = Pattern.compile("[a-z0-9]([-a-z0-9]{0,18}[a-z0-9])?");
  private static final Pattern DEVICE_NAME = Pattern.compile("[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?");

  static FakeSettings from(ProviderContext c) {
    int devices = c.configInt(FakeDeviceProvider.CONFIG_DEVICES, 8);
    if (devices < 0 || devices > MAX_DEVICES) {
      throw invalid(FakeDeviceProvider.CONFIG_DEVICES, devices, "must be from 0 to " + MAX_DEVICES);
    }
    String type = c.config(FakeDeviceProvider.CONFIG_TYPE).orElse("gpu").strip();
    int maxType = 64 - PARTITION_TYPE_SUFFIX.length();
    if (type.isEmpty() || type.getBytes(StandardCharsets.UTF_8).length > maxType) {
      throw invalid(
          FakeDeviceProvider.CONFIG_TYPE,
          type,
          "must be 1 to " + maxType + " bytes (partitions append " + PARTITION_TYPE_SUFFIX + ")");
    }
    String memText = c.config(FakeDeviceProvider.CONFIG_MEMORY).orElse("80Gi").strip();
    Quantity memory;
    try {
      memory = Quantity.parse(memText);
    } catch (IllegalArgumentException e) {
      throw invalid(FakeDeviceProvider.CONFIG_MEMORY, memText, e.getMessage());
    }
    if (memory.signum() <= 0 || !memory.isInteger() || !fitsLong(memory)) {
      throw invalid(
          FakeDeviceProvider.CONFIG_MEMORY, memText, "must be a positive whole number of bytes");
    }
    int partitions = c.configInt(FakeDeviceProvider.CONFIG_PARTITIONS, 0);
    if (partitions < 0 || partitions > MAX_PARTITIONS) {
      throw invalid(
          FakeDeviceProvider.CONFIG_PARTITIONS, partitions, "must be from 0 to " + MAX_PARTITIONS);
    }
    if (partitions > 0 && memory.longValue() / partitions < FakeInventory.MI) {
      throw invalid(
          FakeDeviceProvider.CONFIG_PARTITIONS,
          partitions,
          "leaves less than 1Mi of memory (" + memText + ") per partition");
    }
    List<String> modes = partitionModes(c, partitions);
    boolean consumable = c.configBool(FakeDeviceProvider.CONFIG_CONSUMABLE, false);
    boolean fractional = c.configBool(FakeDeviceProvider.CONFIG_FRACTIONAL_COMPUTE, false);
    if (fractional && !consumable) {
      throw new IllegalArgumentException(
          "setting "
              + FakeDeviceProvider.CONFIG_FRACTIONAL_COMPUTE
              + "=true needs "
              + FakeDeviceProvider.CONFIG_CONSUMABLE
              + "=true: only a shared device has capacity to hand out in fractions");
    }
    if (consumable && partitions > 0) {
      throw new IllegalArgumentException(
          "settings "
              + FakeDeviceProvider.CONFIG_CONSUMABLE
              + "=true and "
              + FakeDeviceProvider.CONFIG_PARTITIONS
              + "="
              + partitions
              + " cannot be combined: a device is either shared by capacity or split into"
              + " partitions");
    }
    if (consumable && memory.longValue() < 2) {
      throw invalid(
          FakeDeviceProvider.CONFIG_MEMORY, memText, "must be at least 2 bytes to be consumable");
    }
    List<List<String>> pci = pciBusIds(c.config(FakeDeviceProvider.CONFIG_PCI_BUS_IDS), devices);
    Optional<String> node =
        c.config(FakeDeviceProvider.CONFIG_DEVICE_NODES)
            .map(String::strip)
            .filter(s -> !s.isEmpty());
    if (node.isPresent() && !node.get().startsWith("/")) {
      throw invalid(FakeDeviceProvider.CONFIG_DEVICE_NODES, node.get(), "must be an absolute path");
    }
    Optional<Duration> flap =
        c.config(FakeDeviceProvider.CONFIG_FLAP_PERIOD).map(FakeSettings::period);
    String flapDevice = c.config(FakeDeviceProvider.CONFIG_FLAP_DEVICE).orElse("gpu-0").strip();
    Optional<Path> healthFile =
        c.config(FakeDeviceProvider.CONFIG_HEALTH_FILE)
            .map(String::strip)
            .filter(f -> !f.isEmpty())
            .map(Path::of);
    if (healthFile.isPresent() && !healthFile.get().isAbsolute()) {
      throw invalid(
          FakeDeviceProvider.CONFIG_HEALTH_FILE, healthFile.get(), "must be an absolute path");
    }
    Optional<Duration> healthTimeout =
        c.config(FakeDeviceProvider.CONFIG_HEALTH_TIMEOUT)
            .map(v -> duration(FakeDeviceProvider.CONFIG_HEALTH_TIMEOUT, v, Duration.ofSeconds(1)));
    Set<String> attach = names(c, FakeDeviceProvider.CONFIG_ATTACH_DEVICES, true);
    Set<String> failures = names(c, FakeDeviceProvider.CONFIG_ATTACH_FAILURES, false);
    if (!attach.contains(ALL) && !attach.containsAll(failures)) {
      Set<String> missing = new TreeSet<>(failures);
      missing.removeAll(attach);
      throw invalid(
          FakeDeviceProvider.CONFIG_ATTACH_FAILURES,
          String.join(",", failures),
          "names " + missing + ", which " + FakeDeviceProvider.CONFIG_ATTACH_DEVICES + " does not");
    }
    Duration attachDelay =
        c.config(FakeDeviceProvider.CONFIG_ATTACH_DELAY)
            .map(v -> duration(FakeDeviceProvider.CONFIG_ATTACH_DELAY, v, Duration.ZERO))
            .orElse(Duration.ofSeconds(1));
    boolean networkData = c.configBool(FakeDeviceProvider.CONFIG_NETWORK_DATA, false);
    Set<SkipNodeOperation> skip = skipNodeOperations(c);
    return new FakeSettings(
        devices,
        type,
        memory,
        partitions,
        modes,
        consumable,
        fractional,
        pci,
        node,
        flap,
        flapDevice,
        healthFile,
        healthTimeout,
        attach,
        failures,
        attachDelay,
        networkData,
        skip);
  }

  /**
   * A comma list of the API's spellings. Which combinations are allowed is the runtime's rule (it
   * validates every pool as the API server does), not repeated here.
   */
  private static Set<SkipNodeOperation> skipNodeOperations(ProviderContext c) {
    String key = FakeDeviceProvider.CONFIG_SKIP_NODE_OPERATIONS;
    Optional<String> setting = c.config(key).map(String::strip).filter(v -> !v.isEmpty());
    if (setting.isEmpty()) {
      return Set.of();
    }
    Set<SkipNodeOperation> out = EnumSet.noneOf(SkipNodeOperation.class);
    for (String part : setting.get().split(",", -1)) {
      String name = part.strip();
      SkipNodeOperation op =
          Arrays.stream(SkipNodeOperation.values())
              .filter(o -> o.apiName().equals(name))
              .findFirst()
              .orElseThrow(
                  () ->
                      invalid(
                          key,
                          setting.get(),
                          "must be a comma list of NodePrepareResources, NodeUnprepareResources"
                              + " and *; \""
                              + name
                              + "\" is not one"));
      if (!out.add(op)) {
        throw invalid(key, setting.get(), "lists \"" + name + "\" twice");
      }
    }
    return Collections.unmodifiableSet(out);
  }

  /** Whether the device needs attaching before its pod may bind (binding conditions). */
  boolean attaches(String device) {
    return attachDevices.contains(ALL) || attachDevices.contains(device);
  }

  private static List<String> partitionModes(ProviderContext c, int partitions) {
    Optional<String> setting =
        c.config(FakeDeviceProvider.CONFIG_PARTITION_MODES)
            .map(String::strip)
            .filter(v -> !v.isEmpty());
    if (setting.isEmpty()) {
      return List.of();
    }
    String v = setting.get();
    if (partitions == 0) {
      throw invalid(
          FakeDeviceProvider.CONFIG_PARTITION_MODES,
          v,
          "needs " + FakeDeviceProvider.CONFIG_PARTITIONS + " > 0: modes are ways to partition");
    }
    List<String> modes = new ArrayList<>();
    for (String part : v.split(",", -1)) {
      String m = part.strip();
      if (!MODE.matcher(m).matches()) {
        throw invalid(
            FakeDeviceProvider.CONFIG_PARTITION_MODES,
            v,
            "must be a comma list of lower-case names (a-z, 0-9, '-', at most "
                + MAX_MODE_LENGTH
                + " characters) such as mig,vgpu; \""
                + m
                + "\" is not one");
      }
      if (modes.contains(m)) {
        throw invalid(FakeDeviceProvider.CONFIG_PARTITION_MODES, v, "lists \"" + m + "\" twice");
      }
      modes.add(m);
    }
    if (modes.size() > MAX_PARTITION_MODES) {
      throw invalid(
          FakeDeviceProvider.CONFIG_PARTITION_MODES,
          v,
          "lists more than " + MAX_PARTITION_MODES + " modes");
    }
    return List.copyOf(modes);
  }

  /** A comma list of device names (or, where allowed, {@code all}). */
  private static Set<String> names(ProviderContext c, String key, boolean allowAll) {
    Optional<String> setting = c.config(key).map(String::strip).filter(v -> !v.isEmpty());
    if (setting.isEmpty()) {
      return Set.of();
    }
    Set<String> out = new TreeSet<>();
    for (String part : setting.get().split(",", -1)) {
      String name = part.strip();
      if (name.equals(ALL) && allowAll) {
        return Set.of(ALL);
      }
      if (!DEVICE_NAME.matcher(name).matches()) {
        throw invalid(
            key,
            setting.get(),
            "must be a comma list of device names such as gpu-0,gpu-1"
                + (allowAll ? " (or " + ALL + ")" : "")
                + "; \""
                + name
                + "\" is not one");
      }
      out.add(name);
    }
    return Set.copyOf(out);
  }

  private static boolean fitsLong(Quantity q) {
    try {
      q.longValue();
      return true;
    } catch (ArithmeticException e) {
      return false;
    }
  }

  /**
   * The canonical BDFs of each device (its primary function first), or none. A device made of
   * several PCI functions lists them joined by {@code +}.
   */
  private static List<List<String>> pciBusIds(Optional<String> setting, int devices) {
    if (setting.isEmpty() || setting.get().isBlank()) {
      return List.of();
    }
    String v = setting.get().strip();
    List<List<String>> out = new ArrayList<>();
    if (v.equalsIgnoreCase("fake")) {
      if (devices > 255) {
        throw invalid(
            FakeDeviceProvider.CONFIG_PCI_BUS_IDS, v, "gives at most 255 devices a fake bus");
      }
      for (int i = 0; i < devices; i++) {
        out.add(List.of(String.format(Locale.ROOT, "0000:%02x:00.0", i + 1)));
      }
      return List.copyOf(out);
    }
    Set<String> seen = new HashSet<>();
    for (String device : v.split(",", -1)) {
      List<String> functions = new ArrayList<>();
      for (String part : device.split("\\+", -1)) {
        String id = part.strip().toLowerCase(Locale.ROOT);
        if (!PciBusId.isCanonical(id)) {
          throw invalid(
              FakeDeviceProvider.CONFIG_PCI_BUS_IDS,
              v,
              "must be \"fake\" or a comma list of PCI addresses such as 0000:3b:00.0 (a device"
                  + " with several functions joins them with +); \""
                  + part.strip()
                  + "\" is not one");
        }
        if (!seen.add(id)) {
          throw invalid(FakeDeviceProvider.CONFIG_PCI_BUS_IDS, v, "lists " + id + " twice");
        }
        functions.add(id);
      }
      out.add(List.copyOf(functions));
    }
    if (out.size() != devices) {
      throw invalid(
          FakeDeviceProvider.CONFIG_PCI_BUS_IDS,
          v,
          "lists "
              + out.size()
              + (out.size() == 1 ? " device but " : " devices but ")
              + FakeDeviceProvider.CONFIG_DEVICES
              + "="
              + devices
              + "; list one per device");
    }
    return List.copyOf(out);
  }

  /** {@code 500ms}, {@code 10s}, {@code 2m}, {@code 1h} or ISO-8601 such as {@code PT10S}. */
  static Duration period(String text) {
    return duration(FakeDeviceProvider.CONFIG_FLAP_PERIOD, text, MIN_FLAP_PERIOD);
  }

  /** A duration setting of at least {@code min}, in the forms {@link #period} takes. */
  static Duration duration(String key, String text, Duration min) {
    String v = text.strip();
    Duration d;
    Matcher m = SHORT_DURATION.matcher(v);
    if (m.matches()) {
      long n = Long.parseLong(m.group(1));
      d =
          switch (m.group(2)) {
            case "ms" -> Duration.ofMillis(n);
            case "s" -> Duration.ofSeconds(n);
            case "m" -> Duration.ofMinutes(n);
            default -> Duration.ofHours(n);
          };
    } else {
      try {
        d = Duration.parse(v);
      } catch (DateTimeParseException e) {
        throw invalid(key, v, "must be a duration such as 500ms, 10s, 2m or PT10S");
      }
    }
    if (d.compareTo(min) < 0) {
      throw invalid(key, v, "must be at least " + min.toMillis() + "ms");
    }
    return d;
  }

  private static IllegalArgumentException invalid(String key, Object value, String rule) {
    return new IllegalArgumentException("setting " + key + "=\"" + value + "\" " + rule);
  }
}
