package io.dra4j.nvidia;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.dra4j.api.claim.ClaimRef;
import io.dra4j.api.device.Device;
import io.dra4j.api.device.DeviceAttribute;
import io.dra4j.api.device.StandardAttributes;
import io.dra4j.api.provider.DeviceEnricher;
import io.dra4j.kube.DeviceClass;
import io.dra4j.kube.HttpKubeClient;
import io.dra4j.kube.KubeJson;
import io.dra4j.kube.ResourceClaim;
import io.dra4j.numa.NumaEnricher;
import io.dra4j.runtime.DraDriver;
import io.dra4j.runtime.testsupport.CdiValidators;
import io.dra4j.testkit.allocator.ClusterAllocator;
import io.dra4j.testkit.apiserver.FakeApiServer;
import io.dra4j.testkit.kubelet.ClaimResult;
import io.dra4j.testkit.kubelet.KubeletSimulator;
import io.dra4j.testkit.kubelet.PluginInstance;
import io.dra4j.testkit.slices.PublishedSlices;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The NVIDIA provider inside a real driver, against the fake NVML: the test kit's API server
 * receives its ResourceSlices (checked against the official OpenAPI schema and the API rules), the
 * kubelet simulator prepares a GPU over the driver's sockets, and the CDI spec it writes is loaded
 * and injected by the reference CDI library.
 */
class NvidiaDriverTest {
  private static final String DRIVER = "gpu.nvidia.com";
  private static final String NODE = "node-a";
  private static final String LIBS = "usr/lib/x86_64-linux-gnu";

  @TempDir Path tmp;
  private FakeNvml fake;
  private Path dev;
  private Path driverRoot;
  private FakeApiServer api;
  private HttpKubeClient client;
  private KubeletSimulator kubelet;
  private DraDriver driver;
  private String nodeUid;
  private List<DeviceEnricher> enrichers = List.of();

  @BeforeEach
  void setUp() throws Exception {
    fake = FakeNvml.current();
    // The host's /dev as the driver container sees it: the nodes of two GPUs and the control
    // nodes (regular files are enough for the driver's existence check).
    dev = Files.createDirectories(tmp.resolve("dev"));
    for (String node :
        List.of("nvidia0", "nvidia1", "nvidiactl", "nvidia-uvm", "nvidia-uvm-tools")) {
      Files.writeString(dev.resolve(node), "");
    }
    driverRoot = tmp.resolve("driver");
    Path libs = Files.createDirectories(driverRoot.resolve(LIBS));
    for (String lib : List.of("libcuda", "libnvidia-ml")) {
      Files.writeString(libs.resolve(lib + ".so.550.54.15"), "fake " + lib);
      Files.createSymbolicLink(libs.resolve(lib + ".so.1"), Path.of(lib + ".so.550.54.15"));
    }
    api = FakeApiServer.start();
    client = api.newClient();
    kubelet = KubeletSimulator.start(Files.createDirectories(tmp.resolve("registry")));
    nodeUid = api.putNode(NODE).metadata().uid();
  }

  @AfterEach
  void tearDown() {
    if (driver != null) {
      driver.close();
    }
    if (kubelet != null) {
      kubelet.close();
      client.close();
      api.close();
    }
    if (fake != null) {
      assertThat(fake.initCount()).as("the driver shut NVML down on close").isZero();
    }
  }

  /** Starts the driver on the fake NVML's scenario; returns the kubelet's view once published. */
  private PluginInstance startDriver(Map<String, String> settings, String... scenario)
      throws Exception {
    fake.configure(tmp, scenario);
    Map<String, String> config = new TreeMap<>();
    config.put("nvml-library", fake.library().toString());
    config.put("proc-root", Files.createDirectories(tmp.resolve("proc")).toString());
    config.put("driver-root", driverRoot.toString());
    config.putAll(settings);
    driver =
        DraDriver.builder()
            .driverName(DRIVER)
            .nodeName(NODE)
            .provider(new NvidiaDeviceProvider())
            .enrichers(enrichers)
            .kubeClient(client)
            .config(config)
            .devRoot(dev)
            .sysfsRoot(Files.createDirectories(tmp.resolve("sys")))
            .registrarDirectory(kubelet.registryDirectory())
            .pluginDirectory(tmp.resolve("plugin"))
            .cdiDirectory(Files.createDirectories(tmp.resolve("cdi")))
            .warmUp(false)
            .build();
    driver.start();
    PluginInstance plugin = kubelet.awaitPlugin(DRIVER, Duration.ofSeconds(30));
    assertThat(driver.awaitPublished(Duration.ofSeconds(30))).isTrue();
    return plugin;
  }

  /** Publishes the scenario's inventory, checks every slice, returns the number of slices. */
  private int assertPublishedSlicesValid(Map<String, String> settings, String... scenario)
      throws Exception {
    startDriver(settings, scenario);
    PublishedSlices published = new PublishedSlices(api, DRIVER);
    assertThat(published.byPool()).containsOnlyKeys(NODE);
    published.assertValid(Optional.of(NODE), nodeUid);
    assertThat(published.devices(NODE)).isNotEmpty();
    return published.pool(NODE).size();
  }

  @Test
  void eightGpusPublishValidSlices() throws Exception {
    assertThat(assertPublishedSlicesValid(Map.of(), "gpus=8")).isEqualTo(1);
  }

  @Test
  void eightGpusWithStaticMigPublishValidSlices() throws Exception {
    List<String> scenario = new ArrayList<>(List.of("gpus=8"));
    for (int i = 0; i < 8; i++) {
      scenario.add("gpu." + i + ".mig=1");
      scenario.add("gpu." + i + ".instances=0@0,0@1,0@2,0@3,0@4,0@5,0@6");
    }
    assertPublishedSlicesValid(Map.of(), scenario.toArray(String[]::new));
  }

  @Test
  void eightGpusWithPartitionableMigPublishValidSlices() throws Exception {
    // 8 counter sets and 208 devices that consume counters: several slices, counters apart.
    assertThat(
            assertPublishedSlicesValid(
                Map.of("mig-mode", "partitionable"), "gpus=8", "gpu.0.mig=1"))
        .isGreaterThan(4);
  }

  @Test
  void theGpusPciAddressesGiveThemTheStandardTopologyAttributes() throws Exception {
    // NVML reports 00000000:07:00.0 and 00000000:17:00.0 (8-digit domain, upper case); the host's
    // sysfs puts them under two root complexes on two NUMA nodes.
    Path sys = Files.createDirectories(tmp.resolve("sys"));
    pciDevice(sys, "0000:07:00.0", "pci0000:00/0000:00:01.0/0000:07:00.0", 0);
    pciDevice(sys, "0000:17:00.0", "pci0000:10/0000:10:01.0/0000:17:00.0", 1);
    enrichers = List.of(new NumaEnricher());
    startDriver(Map.of(), "gpus=2");

    PublishedSlices published = new PublishedSlices(api, DRIVER);
    published.assertValid(Optional.of(NODE), nodeUid);
    Map<String, Device> byName = new TreeMap<>();
    published.devices(NODE).forEach(d -> byName.put(d.name(), d));
    assertThat(byName.get("gpu-0").attribute(StandardAttributes.PCI_BUS_ID))
        .contains(DeviceAttribute.of("0000:07:00.0"));
    assertThat(byName.get("gpu-0").attribute(StandardAttributes.PCIE_ROOT))
        .contains(DeviceAttribute.of("pci0000:00"));
    assertThat(byName.get("gpu-0").attribute(StandardAttributes.NUMA_NODE))
        .contains(DeviceAttribute.of(0));
    assertThat(byName.get("gpu-1").attribute(StandardAttributes.PCIE_ROOT))
        .contains(DeviceAttribute.of("pci0000:10"));
    assertThat(byName.get("gpu-1").attribute(StandardAttributes.NUMA_NODE))
        .contains(DeviceAttribute.of(1));
  }

  /** A PCI device as the kernel lays it out: the device directory and its bus link. */
  private static void pciDevice(Path sys, String bdf, String devicePath, int numaNode)
      throws Exception {
    Path device = Files.createDirectories(sys.resolve("devices").resolve(devicePath));
    Files.writeString(device.resolve("numa_node"), numaNode + "\n");
    Path link = sys.resolve("bus/pci/devices").resolve(bdf);
    Files.createDirectories(link.getParent());
    Files.createSymbolicLink(link, Path.of("../../../devices/" + devicePath));
  }

  @Test
  void aPreparedGpuIsACdiSpecTheReferenceLibraryInjects() throws Exception {
    PluginInstance plugin = startDriver(Map.of(), "gpus=2");
    Allocated a = allocate(client, "train");
    ClaimRef ref = a.ref();
    ClaimResult result = plugin.prepare(List.of(ref)).get(ref.uid());
    assertThat(result.error()).isEmpty();
    List<String> ids = result.devices().get(0).cdiDeviceIds();
    assertThat(ids).isNotEmpty();

    // The reference library injects device nodes from the host, and this host has no GPU: a copy
    // of the spec points the nodes' host paths at /dev/null (hostPath needs cdiVersion 0.5.0, so
    // the copy says at least that). Everything else is as written.
    Path validated = Files.createDirectories(tmp.resolve("cdi-validated"));
    List<String> nodePaths = new ArrayList<>();
    try (Stream<Path> specs = Files.list(tmp.resolve("cdi"))) {
      for (Path spec : specs.toList()) {
        JsonNode json = KubeJson.mapper().readTree(spec.toFile());
        json.findParents("deviceNodes")
            .forEach(
                p ->
                    p.path("deviceNodes")
                        .forEach(
                            n -> {
                              nodePaths.add(n.path("path").asText());
                              ((ObjectNode) n).put("hostPath", "/dev/null");
                            }));
        if (json.path("cdiVersion").asText().compareTo("0.5.0") < 0) {
          ((ObjectNode) json).put("cdiVersion", "0.5.0");
        }
        KubeJson.mapper().writeValue(validated.resolve(spec.getFileName()).toFile(), json);
      }
    }
    String gpuNode = "/dev/nvidia" + a.device().substring("gpu-".length());
    assertThat(nodePaths).contains(gpuNode, "/dev/nvidiactl", "/dev/nvidia-uvm");
    assertThat(nodePaths).containsOnlyOnce(gpuNode);
    for (CdiValidators.Result r : CdiValidators.assertValid(validated, ids)) {
      assertThat(r.ociEnv()).contains("NVIDIA_VISIBLE_DEVICES=void");
      assertThat(r.report().path("oci").path("mounts").toString())
          .contains(driverRoot.resolve(LIBS).resolve("libcuda.so.550.54.15").toString());
    }
    assertThat(plugin.unprepare(List.of(ref))).containsEntry(ref.uid(), Optional.empty());
  }

  @Test
  void aMissingRequiredNodeFailsPrepareNamingIt() throws Exception {
    Files.delete(dev.resolve("nvidia-uvm"));
    PluginInstance plugin = startDriver(Map.of(), "gpus=2");
    Allocated a = allocate(client, "train");
    ClaimResult result = plugin.prepare(List.of(a.ref())).get(a.ref().uid());
    assertThat(result.error())
        .hasValueSatisfying(
            e -> assertThat(e).contains("required device node /dev/nvidia-uvm", a.device()));
    try (Stream<Path> specs = Files.list(tmp.resolve("cdi"))) {
      assertThat(specs).as("no CDI spec for a claim that failed").isEmpty();
    }
  }

  /**
   * The node's static spec as {@code nvidia-ctk cdi generate --device-name-strategy=uuid} writes
   * it, for the fake NVML's GPUs; the nodes' host paths point at /dev/null (this host has no GPU).
   */
  private Path writeStaticSpec(int gpus) throws Exception {
    StringBuilder yaml = new StringBuilder("cdiVersion: 0.5.0\nkind: nvidia.com/gpu\ndevices:\n");
    for (int i = 0; i < gpus; i++) {
      yaml.append("- name: ")
          .append(fakeGpuUuid(i))
          .append("\n  containerEdits:\n    deviceNodes:\n    - {path: /dev/nvidia")
          .append(i)
          .append(", hostPath: /dev/null}\n");
    }
    yaml.append("containerEdits:\n  env: [NVIDIA_VISIBLE_DEVICES=void]\n");
    return Files.writeString(tmp.resolve("cdi").resolve("nvidia.yaml"), yaml);
  }

  /** The UUID fake_nvml.c gives GPU {@code i}. */
  private static String fakeGpuUuid(int i) {
    return String.format("GPU-%08x-1111-4222-8333-%012x", 0xa100, i);
  }

  @Test
  void withAStaticSpecTheKubeletGetsItsDeviceAndTheDriverWritesNoSpec() throws Exception {
    PluginInstance plugin = startDriver(Map.of("static-cdi-kind", "nvidia.com/gpu"), "gpus=2");
    Path spec = writeStaticSpec(2);
    Allocated a = allocate(client, "static");
    ClaimResult result = plugin.prepare(List.of(a.ref())).get(a.ref().uid());
    assertThat(result.error()).isEmpty();
    String id =
        "nvidia.com/gpu=" + fakeGpuUuid(Integer.parseInt(a.device().substring("gpu-".length())));
    assertThat(result.devices().get(0).cdiDeviceIds()).containsExactly(id);
    CdiValidators.assertValid(tmp.resolve("cdi"), List.of(id));
    try (Stream<Path> specs = Files.list(tmp.resolve("cdi"))) {
      assertThat(specs).containsExactly(spec);
    }
    assertThat(plugin.unprepare(List.of(a.ref()))).containsEntry(a.ref().uid(), Optional.empty());
    assertThat(spec).exists();
  }

  @Test
  void withTheSettingButNoStaticSpecTheClaimFailsNamingTheId() throws Exception {
    PluginInstance plugin = startDriver(Map.of("static-cdi-kind", "nvidia.com/gpu"), "gpus=1");
    Allocated a = allocate(client, "nospec");
    ClaimResult result = plugin.prepare(List.of(a.ref())).get(a.ref().uid());
    assertThat(result.error())
        .hasValueSatisfying(
            e ->
                assertThat(e)
                    .contains("CDI device id \"nvidia.com/gpu=" + fakeGpuUuid(0) + "\"")
                    .contains("names no device"));
  }

  private record Allocated(ClaimRef ref, String device) {}

  /**
   * A DeviceClass for the driver's devices and a claim for one whole GPU, allocated on the node.
   */
  private static Allocated allocate(HttpKubeClient client, String name) throws Exception {
    client.create(
        DeviceClass.TYPE,
        KubeJson.yaml()
            .readValue(
                """
                  apiVersion: resource.k8s.io/v1
                  kind: DeviceClass
                  metadata: {name: gpu.nvidia.com}
                  spec:
                    selectors:
                    - cel: {expression: "device.driver == 'gpu.nvidia.com'"}
                  """,
                DeviceClass.class));
    client.create(
        ResourceClaim.TYPE,
        KubeJson.yaml()
            .readValue(
                """
                apiVersion: resource.k8s.io/v1
                kind: ResourceClaim
                metadata: {name: %s, namespace: default}
                spec:
                  devices:
                    requests:
                    - name: gpu
                      exactly:
                        deviceClassName: gpu.nvidia.com
                        selectors:
                        - cel: {expression: "device.attributes['gpu.nvidia.com'].type == 'gpu'"}
                """
                    .formatted(name),
                ResourceClaim.class));
    ResourceClaim claim = new ClusterAllocator(client).allocateClaim("default", name, NODE).claim();
    String device = claim.status().allocation().orElseThrow().devices().results().get(0).device();
    return new Allocated(ClaimRef.of("default", name, claim.metadata().uid()), device);
  }
}
