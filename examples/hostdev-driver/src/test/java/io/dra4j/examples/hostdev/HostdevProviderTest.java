package io.dra4j.examples.hostdev;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.dra4j.api.cdi.ContainerEdits;
import io.dra4j.api.cdi.DeviceNode;
import io.dra4j.api.cdi.Mount;
import io.dra4j.api.claim.AllocatedDevice;
import io.dra4j.api.claim.ClaimAllocation;
import io.dra4j.api.claim.ClaimRef;
import io.dra4j.api.claim.DeviceException;
import io.dra4j.api.claim.PrepareResult;
import io.dra4j.api.device.Device;
import io.dra4j.api.device.DeviceAttribute;
import io.dra4j.api.health.DeviceHealth;
import io.dra4j.api.health.HealthStatus;
import io.dra4j.api.provider.Inventory;
import io.dra4j.api.provider.ProviderContext;
import io.dra4j.runtime.cdi.CdiKind;
import io.dra4j.runtime.cdi.ClaimSpec;
import io.dra4j.runtime.testsupport.Await;
import io.dra4j.runtime.testsupport.CdiValidators;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The provider: inventory, CDI edits, health and rescans, on a fake /dev of real nodes. */
class HostdevProviderTest {
  static final String DRIVER = "hostdev.example.com";
  static final String NODE = "node-1";

  @TempDir Path dev;
  @TempDir Path sys;
  @TempDir Path cdi;
  final HostdevProvider provider = new HostdevProvider();
  final AtomicInteger inventoryChanges = new AtomicInteger();

  @AfterEach
  void close() {
    provider.close();
  }

  ProviderContext context(String... specs) {
    return ProviderContext.builder(DRIVER, NODE)
        .devRoot(dev)
        .sysfsRoot(sys)
        .config(
            HostdevProvider.CONFIG_DEVICE_SPECS,
            new ObjectMapper().valueToTree(List.of(specs)).toString())
        .config(HostdevProvider.CONFIG_RESCAN, "50ms")
        .inventoryListener(inventoryChanges::incrementAndGet)
        .build();
  }

  void link(String name, String target) throws Exception {
    Path p = dev.resolve(name);
    Files.createDirectories(p.getParent());
    Files.deleteIfExists(p);
    Files.createSymbolicLink(p, Path.of(target));
  }

  static List<Device> devices(Inventory inventory) {
    return inventory.pools().get(0).devices();
  }

  @Test
  void aDeviceWithItsAttributesAndCdiEditsOfTheHostsNodes() throws Exception {
    link("fuse", "/dev/null");
    Inventory inv =
        provider.discover(
            context(
                "{name: fuse, groups: [{count: 2, paths: [{path: /dev/fuse, mountPath: /dev/fuse0,"
                    + " permissions: rw}, {path: /etc/hostname, type: Mount, readOnly: true}]}]}"));
    assertThat(inv.pools()).singleElement().satisfies(p -> assertThat(p.name()).isEqualTo(NODE));
    List<Device> devices = devices(inv);
    assertThat(devices).hasSize(2);
    Device d = devices.get(0);
    assertThat(d.attributes())
        .containsEntry(DRIVER + "/resourceName", DeviceAttribute.of("devic.es/fuse"))
        .containsEntry(DRIVER + "/name", DeviceAttribute.of("fuse"))
        .containsEntry(DRIVER + "/instance", DeviceAttribute.of(0))
        .containsEntry(DRIVER + "/path", DeviceAttribute.of("/dev/fuse"))
        .containsKey(DRIVER + "/id");
    assertThat(devices.get(1).attributes())
        .containsEntry(DRIVER + "/instance", DeviceAttribute.of(1));

    ClaimRef claim = ClaimRef.of("ns", "c", "00000000-0000-4000-8000-000000000001");
    AllocatedDevice a = AllocatedDevice.of("req", NODE, d.name());
    PrepareResult r = provider.prepare(ClaimAllocation.of(claim, List.of(a)));
    ContainerEdits edits = r.devices().get(0).edits();
    assertThat(edits.deviceNodes())
        .containsExactly(
            DeviceNode.builder("/dev/fuse0")
                .hostPath("/dev/fuse")
                .type("c")
                .major(1L)
                .minor(3L)
                .permissions("rw")
                .build());
    assertThat(edits.mounts())
        .containsExactly(
            Mount.builder("/etc/hostname", "/etc/hostname")
                .options(List.of("rbind", "nosuid", "ro"))
                .build());

    // The CDI spec the runtime writes of it, read back, and run through the reference library.
    ClaimSpec spec =
        ClaimSpec.build(CdiKind.forDriver(DRIVER), claim, r.devices(), ContainerEdits.NONE);
    String json = spec.spec().orElseThrow().toJson();
    JsonNode node = new ObjectMapper().readTree(json).path("devices").get(0).path("containerEdits");
    assertThat(node.path("deviceNodes").get(0).path("type").asText()).isEqualTo("c");
    assertThat(node.path("deviceNodes").get(0).path("major").asInt()).isEqualTo(1);
    assertThat(node.path("deviceNodes").get(0).path("minor").asInt()).isEqualTo(3);
    assertThat(node.path("deviceNodes").get(0).path("hostPath").asText()).isEqualTo("/dev/fuse");
    if (CdiValidators.available()) {
      Files.writeString(cdi.resolve("hostdev-claim.json"), json);
      CdiValidators.assertValid(cdi, spec.allCdiDeviceIds());
    }

    assertThatThrownBy(
            () ->
                provider.prepare(
                    ClaimAllocation.of(claim, List.of(AllocatedDevice.of("req", NODE, "gone-0")))))
        .isInstanceOf(DeviceException.class)
        .hasMessageContaining("device gone-0 of claim")
        .hasMessageContaining("is not on this node any more");
  }

  @Test
  void aMissingLiteralPathIsUnhealthyUntilItIsBackAndANewGlobMatchIsANewInventory()
      throws Exception {
    link("ttyUSB0", "/dev/null");
    ProviderContext ctx =
        context(
            "{name: kvm, groups: [{paths: [{path: /dev/kvm}]}]}",
            "{name: serial, groups: [{paths: [{path: /dev/ttyUSB*}]}]}");
    assertThat(devices(provider.discover(ctx))).hasSize(2);
    List<DeviceHealth> reports = new CopyOnWriteArrayList<>();
    provider.startHealthMonitoring(reports::addAll);
    assertThat(reports)
        .filteredOn(h -> h.status() == HealthStatus.UNHEALTHY)
        .singleElement()
        .satisfies(
            h -> {
              assertThat(h.device()).startsWith("kvm-");
              assertThat(h.reason()).isEqualTo("PathMissing");
              assertThat(h.message()).isEqualTo("/dev/kvm is missing on the host");
            });

    link("kvm", "/dev/zero");
    Await.until(
        "kvm healthy",
        Duration.ofSeconds(60),
        () ->
            reports.stream()
                .anyMatch(
                    h -> h.device().startsWith("kvm-") && h.status() == HealthStatus.HEALTHY));
    assertThat(inventoryChanges).hasValue(0);

    link("ttyUSB1", "/dev/zero");
    Await.until(
        "a new inventory for ttyUSB1", Duration.ofSeconds(60), () -> inventoryChanges.get() > 0);
    assertThat(devices(provider.discover(ctx))).hasSize(3);
  }

  @Test
  void badSettingsAreUsageErrors() {
    assertThatThrownBy(
            () -> provider.discover(context("{name: x1, groups: [{paths: [{path: rel}]}]}")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("must be an absolute path");
  }
}
