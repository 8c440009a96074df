package io.dra4j.fake;

import io.dra4j.api.device.Quantity;
import io.dra4j.api.provider.ProviderContext;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
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
    boolean consumable,
    List<String> pciBusIds,
    Optional<String> deviceNode,
    Optional<Duration> flapPeriod,
    String flapDevice,
    Optional<Path> healthFile) {

  /** Enough for the node benchmark's publish of 10,000 devices. */
  static final int MAX_DEVICES = 16384;

  static final int MAX_PARTITIONS = 64;
  static final String PARTITION_TYPE_SUFFIX = "-partition";
  static final Duration MIN_FLAP_PERIOD = Duration.ofMillis(10);

  private static final Pattern BDF =
      Pattern.compile("[0-9a-f]{4}:[0-9a-f]{2}:[0-9a-f]{2}\\.[0-9a-f]");
  private static final Pattern SHORT_DURATION = Pattern.compile("([0-9]{1,9})(ms|s|m|h)");

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
    boolean consumable = c.configBool(FakeDeviceProvider.CONFIG_CONSUMABLE, false);
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
    List<String> pci = pciBusIds(c.config(FakeDeviceProvider.CONFIG_PCI_BUS_IDS), devices);
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
    return new FakeSettings(
        devices, type, memory, partitions, consumable, pci, node, flap, flapDevice, healthFile);
  }

  private static boolean fitsLong(Quantity q) {
    try {
      q.longValue();
      return true;
    } catch (ArithmeticException e) {
      return false;
    }
  }

  /** One canonical BDF per device, or none. */
  private static List<String> pciBusIds(Optional<String> setting, int devices) {
    if (setting.isEmpty() || setting.get().isBlank()) {
      return List.of();
    }
    String v = setting.get().strip();
    List<String> out = new ArrayList<>();
    if (v.equalsIgnoreCase("fake")) {
      if (devices > 255) {
        throw invalid(
            FakeDeviceProvider.CONFIG_PCI_BUS_IDS, v, "gives at most 255 devices a fake bus");
      }
      for (int i = 0; i < devices; i++) {
        out.add(String.format(Locale.ROOT, "0000:%02x:00.0", i + 1));
      }
      return List.copyOf(out);
    }
    for (String part : v.split(",", -1)) {
      String id = part.strip().toLowerCase(Locale.ROOT);
      if (!BDF.matcher(id).matches()) {
        throw invalid(
            FakeDeviceProvider.CONFIG_PCI_BUS_IDS,
            v,
            "must be \"fake\" or a comma list of PCI addresses such as 0000:3b:00.0; \""
                + part.strip()
                + "\" is not one");
      }
      out.add(id);
    }
    if (new HashSet<>(out).size() != out.size()) {
      throw invalid(FakeDeviceProvider.CONFIG_PCI_BUS_IDS, v, "lists an address twice");
    }
    if (out.size() != devices) {
      throw invalid(
          FakeDeviceProvider.CONFIG_PCI_BUS_IDS,
          v,
          "lists "
              + out.size()
              + " addresses but "
              + FakeDeviceProvider.CONFIG_DEVICES
              + "="
              + devices
              + "; list one per device");
    }
    return List.copyOf(out);
  }

  /** {@code 500ms}, {@code 10s}, {@code 2m}, {@code 1h} or ISO-8601 such as {@code PT10S}. */
  static Duration period(String text) {
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
        throw invalid(
            FakeDeviceProvider.CONFIG_FLAP_PERIOD,
            v,
            "must be a duration such as 500ms, 10s, 2m or PT10S");
      }
    }
    if (d.compareTo(MIN_FLAP_PERIOD) < 0) {
      throw invalid(FakeDeviceProvider.CONFIG_FLAP_PERIOD, v, "must be at least 10ms");
    }
    return d;
  }

  private static IllegalArgumentException invalid(String key, Object value, String rule) {
    return new IllegalArgumentException("setting " + key + "=\"" + value + "\" " + rule);
  }
}
