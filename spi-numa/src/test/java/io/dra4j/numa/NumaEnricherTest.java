package io.dra4j.numa;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.dra4j.api.device.Device;
import io.dra4j.api.device.DeviceAttribute;
import io.dra4j.api.device.StandardAttributes;
import io.dra4j.api.provider.DeviceEnricher;
import io.dra4j.api.provider.ProviderContext;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.ServiceLoader;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class NumaEnricherTest {

  private static final String POOL = "node-a";

  @TempDir Path dir;
  private FakeSysfs fs;
  private LogCapture log;

  @BeforeEach
  void setUp() {
    fs = new FakeSysfs(dir);
    log = new LogCapture(NumaEnricher.class);
  }

  @AfterEach
  void tearDown() {
    log.close();
  }

  private static Device pciDevice(String name, String bdf) {
    return Device.builder(name)
        .attribute("type", "gpu")
        .attribute(StandardAttributes.PCI_BUS_ID, bdf)
        .build();
  }

  private NumaEnricher enricher(AttributeForm form) {
    return new NumaEnricher(fs.sysfs(), form);
  }

  private static Optional<Object> value(Device d, String attribute) {
    return d.attribute(attribute).map(DeviceAttribute::javaValue);
  }

  /** Four nodes, two per socket; each node's nearest nodes are one on each socket (12). */
  private void twoSockets() {
    fs.online("0-3")
        .node(0, List.of(0, 1), 0, List.of(10, 12, 12, 20))
        .node(1, List.of(2, 3), 0, List.of(12, 10, 20, 12))
        .node(2, List.of(4, 5), 1, List.of(12, 20, 10, 12))
        .node(3, List.of(6, 7), 1, List.of(20, 12, 12, 10))
        .pci("0000:00:01.0", "pci0000:00/0000:00:01.0", 0)
        .pci("0000:40:00.0", "pci0000:40/0000:40:01.0/0000:41:00.0", 1)
        .pci("0000:41:00.0", "pci0000:40/0000:40:01.0/0000:41:00.0", 1)
        .pci("0000:80:00.0", "pci0000:80/0000:80:00.0", 2)
        .pci("0000:c0:00.0", "pci0000:c0/0000:c0:00.0", 3);
  }

  @Test
  void singleNodeAddsRootAndScalarNode() {
    fs.online("0")
        .node(0, List.of(0, 1, 2, 3), 0, List.of(10))
        .pci("0000:00:01.0", 0)
        .pci("0000:3b:00.0", "pci0000:3a/0000:3a:00.0/0000:3b:00.0", 0);

    Device a = enricher(AttributeForm.SCALAR).enrich(POOL, pciDevice("gpu-0", "0000:00:01.0"));
    Device b = enricher(AttributeForm.SCALAR).enrich(POOL, pciDevice("gpu-1", "0000:3b:00.0"));

    assertThat(value(a, StandardAttributes.PCIE_ROOT)).contains("pci0000:00");
    assertThat(value(a, StandardAttributes.NUMA_NODE)).contains(0L);
    assertThat(a.attribute(StandardAttributes.NUMA_NODE).orElseThrow())
        .isInstanceOf(DeviceAttribute.IntValue.class);
    // Behind a bridge the root is still the first component under /sys/devices.
    assertThat(value(b, StandardAttributes.PCIE_ROOT)).contains("pci0000:3a");
    assertThat(value(b, "type")).contains("gpu");
    assertThat(log.warnings()).isEmpty();

    Device listForm = enricher(AttributeForm.LIST).enrich(POOL, pciDevice("gpu-0", "0000:00:01.0"));
    assertThat(value(listForm, StandardAttributes.NUMA_NODE)).contains(List.of(0L));
  }

  @Test
  void listFormPutsPhysicalNodeFirstThenSameSocketNodesAtMinimumDistance() {
    twoSockets();
    NumaEnricher e = enricher(AttributeForm.LIST);

    // node 0: nodes 1 and 2 are both at 12, node 2 sits on the other socket.
    assertThat(value(e.enrich(POOL, pciDevice("a", "0000:00:01.0")), StandardAttributes.NUMA_NODE))
        .contains(List.of(0L, 1L));
    assertThat(value(e.enrich(POOL, pciDevice("b", "0000:41:00.0")), StandardAttributes.NUMA_NODE))
        .contains(List.of(1L, 0L));
    assertThat(value(e.enrich(POOL, pciDevice("c", "0000:80:00.0")), StandardAttributes.NUMA_NODE))
        .contains(List.of(2L, 3L));
    // The physical node stays first even when a neighbour has a smaller id.
    assertThat(value(e.enrich(POOL, pciDevice("d", "0000:c0:00.0")), StandardAttributes.NUMA_NODE))
        .contains(List.of(3L, 2L));
    assertThat(
            value(
                enricher(AttributeForm.SCALAR).enrich(POOL, pciDevice("d", "0000:c0:00.0")),
                StandardAttributes.NUMA_NODE))
        .contains(3L);
    assertThat(value(e.enrich(POOL, pciDevice("b", "0000:41:00.0")), StandardAttributes.PCIE_ROOT))
        .contains("pci0000:40");
    assertThat(log.warnings()).isEmpty();
  }

  @Test
  void listFormKeepsMemoryOnlyNodesAndMapsDistancesThroughOnlineNodes() {
    // Node 1 is offline: the distance rows have entries for nodes 0, 2 and 3 only. Node 3 has
    // memory but no CPUs, so its socket is unknown and it is kept.
    fs.online("0,2-3")
        .node(0, List.of(0, 1), 0, List.of(10, 11, 11))
        .node(2, List.of(2, 3), 0, List.of(11, 10, 11))
        .write("devices/system/node/node3/cpulist", "\n")
        .write("devices/system/node/node3/distance", "11 11 10\n")
        .pci("0000:00:01.0", 2);

    Device d = enricher(AttributeForm.LIST).enrich(POOL, pciDevice("gpu-0", "0000:00:01.0"));

    assertThat(value(d, StandardAttributes.NUMA_NODE)).contains(List.of(2L, 0L, 3L));
  }

  @Test
  void listFormFallsBackToThePhysicalNodeWhenTopologyCannotBeRead() {
    fs.online("0-1")
        .node(0, List.of(0), 0, List.of(10, 11))
        .write("devices/system/node/node1/distance", "11 10\n") // no cpulist for node 1
        .pci("0000:00:01.0", 0);

    Device d = enricher(AttributeForm.LIST).enrich(POOL, pciDevice("gpu-0", "0000:00:01.0"));

    assertThat(value(d, StandardAttributes.NUMA_NODE)).contains(List.of(0L));
  }

  @Test
  void noAffinityMeansNoNumaAttributeAndNoWarning() {
    fs.pci("0000:00:04.0", -1);

    Device d = enricher(AttributeForm.LIST).enrich(POOL, pciDevice("nic-0", "0000:00:04.0"));

    assertThat(d.attribute(StandardAttributes.NUMA_NODE)).isEmpty();
    assertThat(value(d, StandardAttributes.PCIE_ROOT)).contains("pci0000:00");
    assertThat(log.warnings()).isEmpty();
  }

  @Test
  void nodeAbove1023IsNeverPublished() {
    fs.pci("0000:00:04.0", 1024);

    Device d = enricher(AttributeForm.SCALAR).enrich(POOL, pciDevice("nic-0", "0000:00:04.0"));

    assertThat(d.attribute(StandardAttributes.NUMA_NODE)).isEmpty();
    assertThat(value(d, StandardAttributes.PCIE_ROOT)).contains("pci0000:00");
    assertThat(log.warnings()).singleElement().asString().contains("1024").contains("nic-0");
  }

  @Test
  void brokenSymlinkAddsNothingAndWarnsOncePerAttribute() {
    fs.link("bus/pci/devices/0000:00:05.0", "../../../devices/pci0000:00/0000:00:05.0");
    NumaEnricher e = enricher(AttributeForm.SCALAR);
    Device in = pciDevice("gpu-5", "0000:00:05.0");

    Device first = e.enrich(POOL, in);
    Device second = e.enrich(POOL, in);

    assertThat(first).isEqualTo(in);
    assertThat(second).isEqualTo(in);
    assertThat(log.warnings())
        .hasSize(2)
        .anySatisfy(w -> assertThat(w).contains("pcieRoot").contains("does not exist"))
        .anySatisfy(w -> assertThat(w).contains("numaNode").contains("gpu-5"));
  }

  @Test
  void linksOutsideThePciTreeAreRejected() {
    fs.write("devices/platform/0000:00:06.0/numa_node", "0\n")
        .link("bus/pci/devices/0000:00:06.0", "../../../devices/platform/0000:00:06.0")
        .link("bus/pci/devices/0000:00:07.0", "/etc/0000:00:07.0")
        .link("bus/pci/devices/0000:00:08.0", "../../../../../0000:00:08.0");
    NumaEnricher e = enricher(AttributeForm.SCALAR);

    Device platform = e.enrich(POOL, pciDevice("a", "0000:00:06.0"));
    Device outside = e.enrich(POOL, pciDevice("b", "0000:00:07.0"));
    Device escaping = e.enrich(POOL, pciDevice("c", "0000:00:08.0"));

    assertThat(platform.attribute(StandardAttributes.PCIE_ROOT)).isEmpty();
    // numaNode does not depend on the link's shape, only on the device's numa_node file.
    assertThat(value(platform, StandardAttributes.NUMA_NODE)).contains(0L);
    assertThat(outside.attribute(StandardAttributes.PCIE_ROOT)).isEmpty();
    assertThat(escaping.attribute(StandardAttributes.PCIE_ROOT)).isEmpty();
    assertThat(log.warnings())
        .anySatisfy(w -> assertThat(w).contains("device a ").contains("not into /sys/devices/pci"))
        .anySatisfy(w -> assertThat(w).contains("device b ").contains("outside /sys"))
        .anySatisfy(w -> assertThat(w).contains("device c ").contains("leaves sysfs"));
  }

  @Test
  void absoluteLinkTargetsAreReRootedUnderTheSysfsRoot() {
    fs.write("devices/pci0000:17/0000:17:00.0/0000:18:00.0/numa_node", "1\n")
        .link("bus/pci/devices/0000:18:00.0", "/sys/devices/pci0000:17/0000:17:00.0/0000:18:00.0");

    Device d = enricher(AttributeForm.SCALAR).enrich(POOL, pciDevice("gpu-0", "0000:18:00.0"));

    assertThat(value(d, StandardAttributes.PCIE_ROOT)).contains("pci0000:17");
    assertThat(value(d, StandardAttributes.NUMA_NODE)).contains(1L);
  }

  @Test
  void nonPciDevicesAreLeftAlone() {
    Device d = Device.builder("cpu-0").attribute("type", "cpu").build();

    assertThat(enricher(AttributeForm.LIST).enrich(POOL, d)).isSameAs(d);
    assertThat(log.warnings()).isEmpty();
  }

  @Test
  void invalidBusIdsLeaveTheDeviceUnchangedWithOneWarning() {
    fs.pci("0000:00:01.0", 0);
    NumaEnricher e = enricher(AttributeForm.SCALAR);
    Device shortId = pciDevice("a", "0000:00:01");
    Device vmd = pciDevice("b", "10000:e0:00.0");
    Device notString = Device.builder("c").attribute(StandardAttributes.PCI_BUS_ID, 17L).build();

    assertThat(e.enrich(POOL, shortId)).isSameAs(shortId);
    assertThat(e.enrich(POOL, shortId)).isSameAs(shortId);
    assertThat(e.enrich(POOL, vmd)).isSameAs(vmd);
    assertThat(e.enrich(POOL, notString)).isSameAs(notString);

    assertThat(log.warnings())
        .hasSize(3)
        .anySatisfy(w -> assertThat(w).contains("\"0000:00:01\"").contains("must match"))
        .anySatisfy(w -> assertThat(w).contains("\"10000:e0:00.0\""))
        .anySatisfy(w -> assertThat(w).contains("not a string"));
  }

  @Test
  void upperCaseAndNvmlFormsAreNormalized() {
    fs.pci("0000:3b:00.0", "pci0000:3a/0000:3a:00.0/0000:3b:00.0", 1);
    NumaEnricher e = enricher(AttributeForm.SCALAR);

    Device upper = e.enrich(POOL, pciDevice("a", "0000:3B:00.0"));
    Device nvml = e.enrich(POOL, pciDevice("b", "00000000:3B:00.0"));

    for (Device d : List.of(upper, nvml)) {
      assertThat(value(d, StandardAttributes.PCI_BUS_ID)).contains("0000:3b:00.0");
      assertThat(value(d, StandardAttributes.PCIE_ROOT)).contains("pci0000:3a");
      assertThat(value(d, StandardAttributes.NUMA_NODE)).contains(1L);
    }
    assertThat(log.warnings()).isEmpty();
  }

  @Test
  void providerValuesAreKeptAndADisagreementIsLoggedOnce() {
    twoSockets();
    NumaEnricher e = enricher(AttributeForm.SCALAR);
    Device own =
        pciDevice("gpu-0", "0000:80:00.0").toBuilder()
            .attribute(StandardAttributes.NUMA_NODE, 0L)
            .attribute(StandardAttributes.PCIE_ROOT, "pci0000:80")
            .build();

    Device first = e.enrich(POOL, own);
    Device second = e.enrich(POOL, own);

    assertThat(first).isEqualTo(own);
    assertThat(second).isEqualTo(own);
    assertThat(log.warnings())
        .singleElement()
        .asString()
        .contains("gpu-0")
        .contains(StandardAttributes.NUMA_NODE)
        .contains("value 0 is kept")
        .contains("sysfs gives 2");
  }

  @Test
  void aProviderScalarAgreesWithTheListWhenItIsThePhysicalNode() {
    twoSockets();
    Device own =
        pciDevice("gpu-0", "0000:80:00.0").toBuilder()
            .attribute(StandardAttributes.NUMA_NODE, 2L)
            .build();

    Device d = enricher(AttributeForm.LIST).enrich(POOL, own);

    assertThat(value(d, StandardAttributes.NUMA_NODE)).contains(2L);
    assertThat(value(d, StandardAttributes.PCIE_ROOT)).contains("pci0000:80");
    assertThat(log.warnings()).isEmpty();
  }

  @Test
  void oneBadDeviceDoesNotStopTheOthers() {
    twoSockets();
    fs.pci("0000:00:02.0", "pci0000:00/0000:00:02.0", 0)
        .write("devices/pci0000:00/0000:00:02.0/numa_node", "garbage\n");
    NumaEnricher e = enricher(AttributeForm.SCALAR);
    List<Device> in =
        List.of(
            pciDevice("gpu-0", "0000:00:01.0"),
            pciDevice("gpu-1", "0000:00:02.0"),
            pciDevice("gpu-2", "0000:80:00.0"));

    List<Device> out = in.stream().map(d -> e.enrich(POOL, d)).toList();

    assertThat(value(out.get(0), StandardAttributes.NUMA_NODE)).contains(0L);
    assertThat(value(out.get(1), StandardAttributes.PCIE_ROOT)).contains("pci0000:00");
    assertThat(out.get(1).attribute(StandardAttributes.NUMA_NODE)).isEmpty();
    assertThat(value(out.get(2), StandardAttributes.NUMA_NODE)).contains(2L);
    assertThat(log.warnings()).singleElement().asString().contains("gpu-1").contains("garbage");
  }

  @Test
  void initReadsFormAndRootFromTheContext() {
    twoSockets();
    NumaEnricher e = new NumaEnricher();
    e.init(
        ProviderContext.builder("gpu.example.com", "node-a")
            .sysfsRoot(dir.resolve("not-used"))
            .config(Sysfs.CONFIG_SYSFS_ROOT, dir.toString())
            .config(NumaEnricher.CONFIG_FORM, "List")
            .build());

    assertThat(e.form()).isEqualTo(AttributeForm.LIST);
    assertThat(e.sysfs().root()).isEqualTo(dir.toAbsolutePath());
    assertThat(value(e.enrich(POOL, pciDevice("c", "0000:80:00.0")), StandardAttributes.NUMA_NODE))
        .contains(List.of(2L, 3L));

    NumaEnricher fromContextRoot = new NumaEnricher();
    fromContextRoot.init(
        ProviderContext.builder("gpu.example.com", "node-a").sysfsRoot(dir).build());
    assertThat(fromContextRoot.form()).isEqualTo(AttributeForm.SCALAR);
    assertThat(
            value(
                fromContextRoot.enrich(POOL, pciDevice("c", "0000:80:00.0")),
                StandardAttributes.NUMA_NODE))
        .contains(2L);
  }

  @Test
  void anInvalidFormNamesTheKeyAndTheAllowedValues() {
    ProviderContext ctx =
        ProviderContext.builder("gpu.example.com", "node-a")
            .config(NumaEnricher.CONFIG_FORM, "both")
            .build();

    assertThatThrownBy(() -> new NumaEnricher().init(ctx))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("numa-attribute-form=\"both\"")
        .hasMessageContaining("scalar, list");
  }

  @Test
  void anInvalidPcieRootFormNamesItsKey() {
    ProviderContext ctx =
        ProviderContext.builder("gpu.example.com", "node-a")
            .config(NumaEnricher.CONFIG_PCIE_ROOT_FORM, "many")
            .build();

    assertThatThrownBy(() -> new NumaEnricher().init(ctx))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("pcie-root-attribute-form=\"many\"");
  }

  private static Device functions(String name, String... bdfs) {
    return Device.builder(name)
        .attribute(StandardAttributes.PCI_BUS_ID, DeviceAttribute.ofStrings(List.of(bdfs)))
        .build();
  }

  @Test
  void aDeviceOfSeveralFunctionsPublishesItsPrimaryAddressAndOneRootUnlessTheListIsAsked() {
    twoSockets();
    // Functions under two roots, on nodes 0 and 2 (different sockets).
    Device d = functions("gpu-0", "0000:00:01.0", "0000:80:00.0");

    Device scalar = enricher(AttributeForm.SCALAR).enrich(POOL, d);
    assertThat(scalar.attribute(StandardAttributes.PCI_BUS_ID))
        .contains(DeviceAttribute.of("0000:00:01.0"));
    assertThat(scalar.attribute(StandardAttributes.PCIE_ROOT))
        .contains(DeviceAttribute.of("pci0000:00"));
    assertThat(scalar.attribute(StandardAttributes.NUMA_NODE)).contains(DeviceAttribute.of(0));
    assertThat(log.warnings())
        .singleElement()
        .asString()
        .contains("gpu-0", "pcieRoot", "[pci0000:00, pci0000:80]", "pcie-root-attribute-form=list");

    Device list =
        new NumaEnricher(fs.sysfs(), AttributeForm.LIST, AttributeForm.LIST).enrich(POOL, d);
    assertThat(list.attribute(StandardAttributes.PCI_BUS_ID))
        .contains(DeviceAttribute.of("0000:00:01.0"));
    assertThat(list.attribute(StandardAttributes.PCIE_ROOT))
        .contains(DeviceAttribute.ofStrings(List.of("pci0000:00", "pci0000:80")));
    // Node 0 and its same-socket neighbour first, then the second function's node and its.
    assertThat(list.attribute(StandardAttributes.NUMA_NODE))
        .contains(DeviceAttribute.ofInts(List.of(0L, 1L, 2L, 3L)));

    // Only the pcieRoot list asked: numaNode stays an int.
    Device rootsOnly =
        new NumaEnricher(fs.sysfs(), AttributeForm.SCALAR, AttributeForm.LIST).enrich(POOL, d);
    assertThat(rootsOnly.attribute(StandardAttributes.NUMA_NODE)).contains(DeviceAttribute.of(0));
    assertThat(rootsOnly.attribute(StandardAttributes.PCIE_ROOT).orElseThrow().listForm()).isTrue();
  }

  @Test
  void theListFormOfADeviceUnderOneRootHasOneRoot() {
    twoSockets();
    NumaEnricher e = new NumaEnricher(fs.sysfs(), AttributeForm.SCALAR, AttributeForm.LIST);
    assertThat(
            e.enrich(POOL, pciDevice("gpu-0", "0000:00:01.0"))
                .attribute(StandardAttributes.PCIE_ROOT))
        .contains(DeviceAttribute.ofStrings(List.of("pci0000:00")));
    assertThat(
            e.enrich(POOL, functions("gpu-1", "0000:00:01.0", "0000:00:01.0"))
                .attribute(StandardAttributes.PCIE_ROOT))
        .contains(DeviceAttribute.ofStrings(List.of("pci0000:00")));
    assertThat(log.warnings()).isEmpty();
  }

  @Test
  void anInvalidFunctionAddressAddsNothingAndSaysWhich() {
    twoSockets();
    Device d = functions("gpu-0", "0000:00:01.0", "not-an-address");
    Device out = enricher(AttributeForm.LIST).enrich(POOL, d);
    assertThat(out).isSameAs(d);
    assertThat(log.warnings()).singleElement().asString().contains("gpu-0", "not-an-address");
  }

  @Test
  void serviceLoaderFindsTheEnricher() {
    List<String> types =
        ServiceLoader.load(DeviceEnricher.class).stream().map(p -> p.type().getName()).toList();
    assertThat(types).contains(NumaEnricher.class.getName());
  }
}
