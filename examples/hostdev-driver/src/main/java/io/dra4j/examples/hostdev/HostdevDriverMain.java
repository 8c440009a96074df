package io.dra4j.examples.hostdev;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.dra4j.launcher.DeviceClassGenerator;
import io.dra4j.launcher.DriverFlags;
import io.dra4j.launcher.DriverMain;
import io.dra4j.launcher.Launcher;
import java.io.PrintStream;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * {@code java -jar hostdev-dra-driver.jar run|deviceclass|doctor ...}: a DRA driver for host
 * devices ({@code /dev/fuse}, {@code /dev/net/tun}, serial ports, USB devices) that reads the same
 * device specifications as github.com/squat/generic-device-plugin, so that one configuration serves
 * the device plugin and this driver while a node moves from one to the other.
 *
 * <ul>
 *   <li>{@code run --device SPEC...} (or {@code --device-config FILE}, and {@code --domain D}): the
 *       driver, with the launcher's usual flags ({@code run --help}); the driver name defaults to
 *       {@value #DEFAULT_DRIVER_NAME}.
 *   <li>{@code deviceclass --device SPEC...}: one DeviceClass per device, named {@code
 *       <name>.<driver>}, whose {@code extendedResourceName} is the plugin's resource name ({@code
 *       devic.es/fuse}), so that unchanged pods asking for it are served by this driver.
 *   <li>{@code doctor}: the migration doctor.
 * </ul>
 */
public final class HostdevDriverMain {
  /** The driver name when neither --driver-name nor DRIVER_NAME says otherwise. */
  static final String DEFAULT_DRIVER_NAME = "hostdev.example.com";

  static final String DEVICE_FLAGS =
      String.join(
          "\n",
          "Devices, as generic-device-plugin reads them:",
          "  --device SPEC          one device (repeatable): JSON or YAML, e.g.",
          "                         '{\"name\": \"fuse\", \"groups\": [{\"count\": 10, \"paths\":"
              + " [{\"path\": \"/dev/fuse\"}]}]}'",
          "  --device-config FILE   a config file with a devices list (and domain) instead",
          "  --domain D             the extended resources' domain; default "
              + DeviceSpecs.DEFAULT_DOMAIN,
          "  --rescan-interval D    (run) how often globs and USB devices are looked for again and"
              + " literal paths checked; default 5s");

  private HostdevDriverMain() {}

  public static void main(String[] args) {
    launcher().main(args);
  }

  static Launcher launcher() {
    return Launcher.named("hostdev-dra-driver.jar")
        .defaults(Map.of("provider", HostdevProvider.NAME, "driver-name", DEFAULT_DRIVER_NAME))
        .command("run", "the DRA driver, as its DaemonSet runs it", HostdevDriverMain::runCommand)
        .command(
            DeviceClassGenerator.COMMAND,
            "print a DeviceClass per device, mapping the device plugin's resource name to it",
            HostdevDriverMain::deviceClasses);
  }

  static int run(List<String> args, Map<String, String> env, PrintStream out, PrintStream err) {
    return launcher().run(args, env, out, err);
  }

  /** The device flags of a command line, and the rest of it. */
  record DeviceFlags(
      List<String> devices, Optional<Path> config, Optional<String> domain, List<String> rest) {

    static DeviceFlags of(List<String> args) {
      List<String> devices = new ArrayList<>();
      Optional<Path> config = Optional.empty();
      Optional<String> domain = Optional.empty();
      List<String> rest = new ArrayList<>();
      for (int i = 0; i < args.size(); i++) {
        String a = args.get(i);
        String flag = a.contains("=") && a.startsWith("--") ? a.substring(0, a.indexOf('=')) : a;
        if (!flag.equals("--device")
            && !flag.equals("--device-config")
            && !flag.equals("--domain")) {
          rest.add(a);
          continue;
        }
        String value;
        if (!flag.equals(a)) {
          value = a.substring(flag.length() + 1);
        } else if (i + 1 < args.size()) {
          value = args.get(++i);
        } else {
          throw new IllegalArgumentException("flag " + flag + " needs a value");
        }
        switch (flag) {
          case "--device" -> devices.add(value);
          case "--device-config" -> {
            if (config.isPresent()) {
              throw new IllegalArgumentException("flag --device-config is given twice");
            }
            config = Optional.of(Path.of(value));
          }
          default -> {
            if (domain.isPresent()) {
              throw new IllegalArgumentException("flag --domain is given twice");
            }
            domain = Optional.of(value);
          }
        }
      }
      return new DeviceFlags(devices, config, domain, rest);
    }

    boolean isHelp() {
      return rest.stream().anyMatch(a -> a.equals("-h") || a.equals("--help"));
    }

    /**
     * The provider settings {@code run} passes on that are checked before the driver starts: a
     * wrong one would otherwise fail every discovery, which the driver retries instead of exiting.
     */
    void checkSettings() {
      String flag = "--" + HostdevProvider.CONFIG_RESCAN;
      for (int i = 0; i < rest.size(); i++) {
        String a = rest.get(i);
        if (a.startsWith(flag + "=")) {
          HostdevProvider.duration(HostdevProvider.CONFIG_RESCAN, a.substring(flag.length() + 1));
        } else if (a.equals(flag) && i + 1 < rest.size()) {
          HostdevProvider.duration(HostdevProvider.CONFIG_RESCAN, rest.get(i + 1));
        }
      }
    }

    /** Checked: a mistake is a usage error before anything starts. */
    List<DeviceSpec> specs() {
      return DeviceSpecs.parse(devices, config, domain);
    }
  }

  /**
   * {@code run}: the device flags become the provider's settings (the launcher takes a flag once;
   * {@code --device} is repeated), checked first so that a mistake is a usage error.
   */
  static int runCommand(
      List<String> args,
      Map<String, String> defaults,
      Map<String, String> env,
      PrintStream out,
      PrintStream err) {
    DeviceFlags flags;
    try {
      flags = DeviceFlags.of(args);
      if (flags.isHelp()) {
        int rc = DriverMain.run(flags.rest(), defaults, env, out, err);
        out.println();
        out.println(DEVICE_FLAGS);
        return rc;
      }
      flags.specs();
      flags.checkSettings();
    } catch (IllegalArgumentException e) {
      return usage(err, e.getMessage());
    }
    List<String> all = new ArrayList<>(flags.rest());
    if (!flags.devices().isEmpty()) {
      all.add("--" + HostdevProvider.CONFIG_DEVICE_SPECS);
      all.add(new ObjectMapper().valueToTree(flags.devices()).toString());
    }
    flags
        .config()
        .ifPresent(
            c -> all.addAll(List.of("--" + HostdevProvider.CONFIG_DEVICE_CONFIG, c.toString())));
    flags.domain().ifPresent(d -> all.addAll(List.of("--" + HostdevProvider.CONFIG_DOMAIN, d)));
    return DriverMain.run(all, defaults, env, out, err);
  }

  private static int usage(PrintStream err, String message) {
    err.println("error: " + message);
    err.println(DEVICE_FLAGS);
    return Launcher.EXIT_USAGE;
  }

  /** {@code deviceclass}: one DeviceClass per device specification. */
  static int deviceClasses(
      List<String> args,
      Map<String, String> defaults,
      Map<String, String> env,
      PrintStream out,
      PrintStream err) {
    DeviceFlags flags;
    List<DeviceSpec> specs;
    try {
      flags = DeviceFlags.of(args);
      if (flags.isHelp()) {
        out.println(
            "usage: deviceclass [--driver-name D] (--device SPEC... | --device-config FILE)"
                + " [--domain D]");
        out.println();
        out.println(
            "Prints one resource.k8s.io/v1 DeviceClass per device, named <name>.<driver>, whose"
                + " extendedResourceName is generic-device-plugin's resource name for it.");
        out.println("  --driver-name D   [DRIVER_NAME] the driver; default " + DEFAULT_DRIVER_NAME);
        out.println(DEVICE_FLAGS);
        return 0;
      }
      specs = flags.specs();
    } catch (IllegalArgumentException e) {
      return usage(err, e.getMessage());
    }
    String driver =
        DriverFlags.fallback(DriverFlags.DRIVER_NAME, defaults, env).orElse(DEFAULT_DRIVER_NAME);
    List<String> rest = flags.rest();
    for (int i = 0; i < rest.size(); i++) {
      String a = rest.get(i);
      if (a.equals("--driver-name") && i + 1 < rest.size()) {
        driver = rest.get(++i);
      } else if (a.startsWith("--driver-name=")) {
        driver = a.substring("--driver-name=".length());
      } else {
        return usage(err, "unknown flag " + a + " (deviceclass --help)");
      }
    }
    for (DeviceSpec s : specs) {
      if (specs.size() > 1) {
        out.println("---");
      }
      String attribute = s.resourceName().length() <= 64 ? "resourceName" : "name";
      String value = attribute.equals("name") ? s.name() : s.resourceName();
      int rc =
          DeviceClassGenerator.run(
              List.of(
                  "--driver-name",
                  driver,
                  "--class-name",
                  s.name() + "." + driver,
                  "--extended-resource-name",
                  s.resourceName(),
                  "--selector",
                  "device.attributes['" + driver + "']." + attribute + " == '" + value + "'"),
              Map.of(),
              Map.of(),
              out,
              err);
      if (rc != 0) {
        return rc;
      }
    }
    return 0;
  }
}
