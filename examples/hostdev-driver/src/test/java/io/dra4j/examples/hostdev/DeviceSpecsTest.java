package io.dra4j.examples.hostdev;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.dra4j.examples.hostdev.DeviceSpec.Group;
import io.dra4j.examples.hostdev.DeviceSpec.PathSpec;
import io.dra4j.examples.hostdev.DeviceSpec.PathType;
import io.dra4j.examples.hostdev.DeviceSpec.UsbSpec;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** generic-device-plugin's device specifications, with its own examples and its defaults. */
class DeviceSpecsTest {
  @TempDir Path dir;

  static List<DeviceSpec> flags(String... values) {
    return DeviceSpecs.parse(List.of(values), Optional.empty(), Optional.empty());
  }

  @Test
  void thePluginsHelpExamplesParseWithItsDefaults() {
    List<DeviceSpec> specs =
        flags(
            "{\"name\": \"serial\", \"groups\": [{\"paths\": [{\"path\": \"/dev/ttyUSB*\"}]},"
                + " {\"paths\": [{\"path\": \"/dev/ttyACM*\"}]}]}",
            "{\"name\": \"capture\", \"groups\": [{\"paths\": [{\"path\": \"/dev/snd/pcmC0D0c\"},"
                + " {\"path\": \"/dev/snd/controlC0\"}]}]}",
            "{\"name\": \"ch340\", \"groups\": [{\"usb\": [{\"vendor\": \"1a86\", \"product\":"
                + " \"7523\"}]}]}",
            "{\"name\": \"fuse\", \"groups\": [{\"count\": 10, \"paths\": [{\"path\":"
                + " \"/dev/fuse\"}]}]}",
            "{\"name\": \"ports\", \"groups\": [{\"paths\": [{\"path\": \"/dev/ttyS0\", \"optional\":"
                + " true}, {\"path\": \"/dev/ttyUSB*\", \"mountPath\": \"/dev/serial/\"}]}]}");
    assertThat(specs)
        .extracting(DeviceSpec::resourceName)
        .containsExactly(
            "devic.es/serial",
            "devic.es/capture",
            "devic.es/ch340",
            "devic.es/fuse",
            "devic.es/ports");
    PathSpec usb0 = specs.get(0).groups().get(0).paths().get(0);
    assertThat(usb0)
        .isEqualTo(
            new PathSpec(
                "/dev/ttyUSB*", Optional.empty(), "mrw", false, PathType.DEVICE, 1, false));
    assertThat(usb0.isGlob()).isTrue();
    assertThat(specs.get(0).groups()).hasSize(2);
    assertThat(specs.get(1).groups().get(0).paths()).hasSize(2);
    assertThat(specs.get(2).groups().get(0))
        .isEqualTo(new Group(List.of(), List.of(new UsbSpec(0x1a86, 0x7523, "")), 1));
    assertThat(specs.get(3).groups().get(0).count()).isEqualTo(10);
    assertThat(specs.get(4).groups().get(0).paths().get(0).optional()).isTrue();
    assertThat(specs.get(4).groups().get(0).paths().get(1).mountPath()).contains("/dev/serial/");
  }

  @Test
  void yamlKeysInAnyCaseAndTrimmedValuesAsTheGoPluginReadsThem() {
    DeviceSpec s =
        flags(
                "name: ' fuse '\n"
                    + "groups:\n"
                    + "- COUNT: 2\n"
                    + "  paths:\n"
                    + "  - {PATH: ' /dev/fuse ', mountpath: ' /dev/fuse2 ', Permissions: rw}\n"
                    + "  - {path: /etc/hosts, type: Mount, readonly: true, limit: 3}")
            .get(0);
    assertThat(s.name()).isEqualTo("fuse");
    Group g = s.groups().get(0);
    assertThat(g.count()).isEqualTo(2);
    assertThat(g.paths().get(0))
        .isEqualTo(
            new PathSpec(
                "/dev/fuse", Optional.of("/dev/fuse2"), "rw", false, PathType.DEVICE, 1, false));
    // A mount has no device permissions unless given.
    assertThat(g.paths().get(1))
        .isEqualTo(
            new PathSpec("/etc/hosts", Optional.empty(), "", true, PathType.MOUNT, 3, false));
  }

  @Test
  void usbIdsAreHexQuotedOrNot() {
    UsbSpec u =
        flags("{name: dongle, groups: [{usb: [{vendor: 1209, product: \"000F\", serial: '01'}]}]}")
            .get(0)
            .groups()
            .get(0)
            .usb()
            .get(0);
    assertThat(u).isEqualTo(new UsbSpec(0x1209, 0x000f, "01"));
  }

  @Test
  void aConfigFileWithTheDomainAndThePluginsOwnKeys() throws Exception {
    Path file = dir.resolve("config.yaml");
    Files.writeString(
        file,
        """
        log-level: debug
        listen: ":8080"
        domain: squat.ai
        devices:
          - name: fuse
            groups:
              - count: 4
                paths:
                  - path: /dev/fuse
          - name: tun
            groups:
              - paths:
                  - path: /dev/net/tun
        """);
    List<DeviceSpec> specs = DeviceSpecs.parse(List.of(), Optional.of(file), Optional.empty());
    assertThat(specs)
        .extracting(DeviceSpec::resourceName)
        .containsExactly("squat.ai/fuse", "squat.ai/tun");
    // --domain beats the file's, as a flag beats the config in the plugin.
    assertThat(DeviceSpecs.parse(List.of(), Optional.of(file), Optional.of("example.com")))
        .extracting(DeviceSpec::resourceName)
        .containsExactly("example.com/fuse", "example.com/tun");
    // The alias "device" works too.
    Files.writeString(file, "device: [{name: kvm, groups: [{paths: [{path: /dev/kvm}]}]}]");
    assertThat(DeviceSpecs.parse(List.of(), Optional.of(file), Optional.empty()))
        .extracting(DeviceSpec::resourceName)
        .containsExactly("devic.es/kvm");
  }

  @Test
  void mistakesAreErrorsNamingTheSourceTheDeviceTheFieldAndTheRule() throws Exception {
    assertThatThrownBy(() -> flags("{\"name\": \"a\"}"))
        .hasMessageContaining("--device #1 (device \"a\"): name must match the regular expression");
    assertThatThrownBy(() -> flags("{name: Fuse}")).hasMessageContaining("device \"Fuse\"");
    assertThatThrownBy(
            () ->
                flags(
                    "{name: ok, groups: []}",
                    "{name: x1, groups: [{paths: [{path: /dev/a}], usb: [{vendor: '1'}]}]}"))
        .hasMessage(
            "--device #2 (device \"x1\"): groups[0]: cannot define both paths and usb in one group");
    assertThatThrownBy(() -> flags("{name: x1, groups: [{paths: [{path: /dev/a, mountPth: /b}]}]}"))
        .hasMessageContaining(
            "groups[0].paths[0]: unknown field \"mountPth\" (known: limit, mountPath,");
    assertThatThrownBy(() -> flags("{name: x1, groups: [{paths: [{path: /dev/a, type: device}]}]}"))
        .hasMessageContaining(".type \"device\" must be Device or Mount");
    assertThatThrownBy(
            () -> flags("{name: x1, groups: [{paths: [{path: /dev/a, permissions: rx}]}]}"))
        .hasMessageContaining(".permissions \"rx\" must be made of r (read), w (write) and m");
    assertThatThrownBy(() -> flags("{name: x1, groups: [{paths: [{path: dev/a}]}]}"))
        .hasMessageContaining(".path \"dev/a\" must be an absolute path on the host");
    assertThatThrownBy(() -> flags("{name: x1, groups: [{paths: [{path: '/dev/tty[0-'}]}]}"))
        .hasMessageContaining("groups[0].paths[0].path: glob \"tty[0-\" has an unclosed [");
    assertThatThrownBy(() -> flags("{name: x1, groups: [{count: -1, paths: [{path: /dev/a}]}]}"))
        .hasMessageContaining("groups[0].count must be a whole number of 0 or more, got -1");
    assertThatThrownBy(() -> flags("{name: x1, groups: [{usb: [{vendor: 'xyz1'}]}]}"))
        .hasMessageContaining(".usb[0].vendor \"xyz1\" must be a hexadecimal USB id");
    assertThatThrownBy(() -> flags("{name: x1}", "{name: x1}"))
        .hasMessage("--device #2: device \"x1\" is given twice");
    assertThatThrownBy(() -> flags("{name: [x1"))
        .hasMessageStartingWith("--device #1 ({name: [x1) is not JSON or YAML");
    assertThatThrownBy(() -> flags())
        .hasMessageStartingWith("no device: give at least one --device");
    assertThatThrownBy(
            () ->
                DeviceSpecs.parse(
                    List.of("{name: x1}"), Optional.empty(), Optional.of("Bad_Domain")))
        .hasMessageContaining("domain \"Bad_Domain\" must be a DNS subdomain");
    Path file = dir.resolve("c.yaml");
    Files.writeString(file, "devices: [{name: x1}]\nlisten: ':1'\nextra: 1\n");
    assertThatThrownBy(() -> DeviceSpecs.parse(List.of(), Optional.of(file), Optional.empty()))
        .hasMessageContaining("--device-config " + file + ": unknown field \"extra\"");
    assertThatThrownBy(
            () -> DeviceSpecs.parse(List.of("{name: x1}"), Optional.of(file), Optional.empty()))
        .hasMessageContaining("give them one way");
  }
}
