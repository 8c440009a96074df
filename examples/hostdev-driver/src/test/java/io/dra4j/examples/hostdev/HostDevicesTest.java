package io.dra4j.examples.hostdev;

import static org.assertj.core.api.Assertions.assertThat;

import io.dra4j.examples.hostdev.HostDevices.HostDevice;
import io.dra4j.examples.hostdev.HostDevices.HostPath;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Discovery on a fake /dev whose nodes are links to the host's real character devices /dev/null (1,
 * 3) and /dev/zero (1, 5), and a fake sysfs.
 */
class HostDevicesTest {
  @TempDir Path dev;
  @TempDir Path sys;
  HostDevices host;

  @BeforeEach
  void setUp() throws Exception {
    host = new HostDevices(dev, sys);
    link("ttyUSB0", "/dev/null");
    link("ttyUSB1", "/dev/zero");
    link("fuse", "/dev/null");
    link("snd/controlC0", "/dev/zero");
  }

  void link(String name, String target) throws Exception {
    Path p = dev.resolve(name);
    Files.createDirectories(p.getParent());
    Files.deleteIfExists(p);
    Files.createSymbolicLink(p, Path.of(target));
  }

  static Map<String, HostDevice> scan(HostDevices host, String... specs) throws Exception {
    return host.scan(DeviceSpecs.parse(List.of(specs), Optional.empty(), Optional.empty()));
  }

  /** generic-device-plugin's device id: SHA-1 of the instance number, then each host path. */
  static String pluginId(int instance, String... paths) throws Exception {
    MessageDigest sha1 = MessageDigest.getInstance("SHA-1");
    sha1.update(Integer.toString(instance).getBytes(StandardCharsets.UTF_8));
    for (String p : paths) {
      sha1.update(p.getBytes(StandardCharsets.UTF_8));
    }
    return HexFormat.of().formatHex(sha1.digest());
  }

  @Test
  void aGlobMakesOneDeviceAMatchWithThePluginsIdsAndTheHostsNumbers() throws Exception {
    var found = scan(host, "{name: serial, groups: [{paths: [{path: /dev/ttyUSB*}]}]}");
    assertThat(found.values())
        .extracting(HostDevice::id)
        .containsExactly(pluginId(0, "/dev/ttyUSB0"), pluginId(0, "/dev/ttyUSB1"));
    HostDevice first = found.values().iterator().next();
    assertThat(first.name()).isEqualTo("serial-" + pluginId(0, "/dev/ttyUSB0").substring(0, 10));
    assertThat(first.paths())
        .singleElement()
        .satisfies(
            p -> {
              assertThat(p.hostPath()).isEqualTo("/dev/ttyUSB0");
              assertThat(p.containerPath()).isEqualTo("/dev/ttyUSB0");
              assertThat(p.nodeType()).contains('c');
              assertThat(p.major()).isEqualTo(1);
              assertThat(p.minor()).isEqualTo(3);
              assertThat(p.permissions()).isEqualTo("mrw");
            });
    assertThat(found.values()).allSatisfy(d -> assertThat(d.missing()).isEmpty());
  }

  @Test
  void countMakesThatManyDevicesOfOnePathSet() throws Exception {
    var found = scan(host, "{name: fuse, groups: [{count: 3, paths: [{path: /dev/fuse}]}]}");
    assertThat(found.values())
        .extracting(HostDevice::id, HostDevice::instance)
        .containsExactly(
            org.assertj.core.groups.Tuple.tuple(pluginId(0, "/dev/fuse"), 0),
            org.assertj.core.groups.Tuple.tuple(pluginId(1, "/dev/fuse"), 1),
            org.assertj.core.groups.Tuple.tuple(pluginId(2, "/dev/fuse"), 2));
  }

  @Test
  void pathsOfAGroupPairUpCappedByTheirLimitAsThePluginDoes() throws Exception {
    // Two matches of ttyUSB*, one of /dev/fuse: only one pair, unless fuse may be used twice.
    assertThat(
            scan(
                host, "{name: pair, groups: [{paths: [{path: /dev/ttyUSB*}, {path: /dev/fuse}]}]}"))
        .hasSize(1);
    var paired =
        scan(
            host,
            "{name: pair, groups: [{paths: [{path: /dev/ttyUSB*}, {path: /dev/fuse, limit: 2}]}]}");
    assertThat(paired.values())
        .extracting(HostDevice::id)
        .containsExactly(
            pluginId(0, "/dev/ttyUSB0", "/dev/fuse"), pluginId(0, "/dev/ttyUSB1", "/dev/fuse"));
    // An optional path that is missing is left out; the group still makes its devices.
    var optional =
        scan(
            host,
            "{name: opt, groups: [{paths: [{path: /dev/ttyS0, optional: true}, {path: /dev/fuse}]}]}");
    assertThat(optional.values())
        .singleElement()
        .satisfies(d -> assertThat(d.id()).isEqualTo(pluginId(0, "/dev/fuse")));
  }

  @Test
  void aMissingLiteralPathKeepsItsDeviceAndSaysWhatIsMissingWhileAGlobFindsNothing()
      throws Exception {
    var found =
        scan(
            host,
            "{name: kvm, groups: [{paths: [{path: /dev/kvm}]}]}",
            "{name: acm, groups: [{paths: [{path: /dev/ttyACM*}]}]}");
    assertThat(found.values())
        .singleElement()
        .satisfies(
            d -> {
              assertThat(d.spec().name()).isEqualTo("kvm");
              assertThat(d.missing()).containsExactly("/dev/kvm");
              assertThat(d.paths().get(0).nodeType()).isEmpty();
            });
    link("kvm", "/dev/null");
    link("ttyACM0", "/dev/zero");
    found =
        scan(
            host,
            "{name: kvm, groups: [{paths: [{path: /dev/kvm}]}]}",
            "{name: acm, groups: [{paths: [{path: /dev/ttyACM*}]}]}");
    assertThat(found).hasSize(2);
    assertThat(found.values()).allSatisfy(d -> assertThat(d.missing()).isEmpty());
  }

  @Test
  void mountPathsAndMounts() throws Exception {
    Path hosts = Files.writeString(sys.resolveSibling(sys.getFileName() + "-hosts"), "x");
    var found =
        scan(
            host,
            "{name: snd, groups: [{paths: [{path: /dev/snd/controlC0, mountPath: /dev/audio/},"
                + " {path: '"
                + hosts
                + "', type: Mount, mountPath: /etc/hosts, readOnly: true}]}]}");
    List<HostPath> paths = found.values().iterator().next().paths();
    assertThat(paths.get(0).containerPath()).isEqualTo("/dev/audio/controlC0");
    assertThat(paths.get(0).minor()).isEqualTo(5);
    assertThat(paths.get(1).hostPath()).isEqualTo(hosts.toString());
    assertThat(paths.get(1).containerPath()).isEqualTo("/etc/hosts");
    assertThat(paths.get(1).readOnly()).isTrue();
  }

  @Test
  void usbGroupsMatchSysfsByVendorProductAndSerial() throws Exception {
    usb("1-1", "1a86", "7523", "A1", "1", "4");
    usb("1-2", "1a86", "7523", "B2", "1", "12");
    usb("2-1", "0403", "6001", null, "2", "3");
    Files.createDirectories(sys.resolve("bus/usb/devices/usb1")); // a hub without the files
    var all =
        scan(host, "{name: ch340, groups: [{count: 2, usb: [{vendor: 1a86, product: '7523'}]}]}");
    // Both matches form one device, count times, as the plugin's discoverUSB does.
    assertThat(all.values())
        .extracting(HostDevice::id)
        .containsExactly(
            pluginId(0, "/dev/bus/usb/001/004", "/dev/bus/usb/001/012"),
            pluginId(1, "/dev/bus/usb/001/004", "/dev/bus/usb/001/012"));
    assertThat(all.values().iterator().next().usb()).isEmpty();
    var one =
        scan(host, "{name: ch340, groups: [{usb: [{vendor: 1a86, product: '7523', serial: B2}]}]}");
    assertThat(one.values())
        .singleElement()
        .satisfies(
            d -> {
              assertThat(d.paths())
                  .extracting(HostPath::hostPath)
                  .containsExactly("/dev/bus/usb/001/012");
              assertThat(d.paths().get(0).permissions()).isEqualTo("rw");
              assertThat(d.usb()).hasValueSatisfying(u -> assertThat(u.serial()).isEqualTo("B2"));
            });
    assertThat(scan(host, "{name: none, groups: [{usb: [{vendor: ffff, product: '1'}]}]}"))
        .isEmpty();
  }

  void usb(String name, String vendor, String product, String serial, String bus, String dev)
      throws Exception {
    Path d = Files.createDirectories(sys.resolve("bus/usb/devices/" + name));
    Files.writeString(d.resolve("idVendor"), vendor + "\n");
    Files.writeString(d.resolve("idProduct"), product + "\n");
    if (serial != null) {
      Files.writeString(d.resolve("serial"), serial + "\n");
    }
    Files.writeString(d.resolve("busnum"), bus + "\n");
    Files.writeString(d.resolve("devnum"), dev + "\n");
  }

  @Test
  void aDeviceNodeOnAPciFunctionGetsItsAddressAndOneOnAnotherBusDoesNot() throws Exception {
    // /sys/dev/char/1:3 -> a drm card of PCI function 0000:00:02.0; 1:5 -> a USB device.
    Path card = Files.createDirectories(sys.resolve("devices/pci0000:00/0000:00:02.0/drm/card0"));
    Path usbDev =
        Files.createDirectories(sys.resolve("devices/pci0000:00/0000:00:14.0/usb1/1-1/tty/x"));
    Files.createDirectories(sys.resolve("bus/pci"));
    Files.createDirectories(sys.resolve("bus/usb"));
    Files.createDirectories(sys.resolve("class/drm"));
    Files.createSymbolicLink(card.resolve("subsystem"), sys.resolve("class/drm"));
    Files.createSymbolicLink(
        card.getParent().getParent().resolve("subsystem"), sys.resolve("bus/pci"));
    Files.createSymbolicLink(
        sys.resolve("devices/pci0000:00/0000:00:14.0/subsystem"), sys.resolve("bus/pci"));
    Files.createSymbolicLink(
        sys.resolve("devices/pci0000:00/0000:00:14.0/usb1/1-1/subsystem"), sys.resolve("bus/usb"));
    Files.createDirectories(sys.resolve("dev/char"));
    Files.createSymbolicLink(sys.resolve("dev/char/1:3"), card);
    Files.createSymbolicLink(sys.resolve("dev/char/1:5"), usbDev);
    var found =
        scan(
            host,
            "{name: gpu, groups: [{paths: [{path: /dev/fuse}]}]}",
            "{name: tty, groups: [{paths: [{path: /dev/ttyUSB1}]}]}");
    assertThat(found.values())
        .extracting(HostDevice::pciBusId)
        .containsExactly(Optional.of("0000:00:02.0"), Optional.empty());
  }
}
