package io.dra4j.nvidia;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.dra4j.api.device.Counter;
import io.dra4j.api.device.CounterSet;
import io.dra4j.api.device.Device;
import io.dra4j.api.device.DeviceAttribute;
import io.dra4j.api.device.Quantity;
import io.dra4j.api.device.StandardAttributes;
import io.dra4j.api.provider.Inventory;
import io.dra4j.api.provider.Pool;
import io.dra4j.nvidia.nvml.NvmlException;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Discovery through the real JNA binding against the fake libnvidia-ml.so.1. */
class DiscoveryTest {
  @TempDir Path tmp;
  private FakeNvml fake;

  @BeforeEach
  void setUp() {
    fake = FakeNvml.current();
  }

  @AfterEach
  void nvmlShutDown() {
    if (fake != null) {
      assertThat(fake.initCount()).as("every nvmlInit matched by nvmlShutdown").isZero();
    }
  }

  private Inventory discover(Map<String, String> settings, String... scenario) throws Exception {
    fake.configure(tmp, scenario);
    try (NvidiaDeviceProvider p = new NvidiaDeviceProvider()) {
      Inventory inv = p.discover(fake.context(tmp, settings));
      ApiLimits.check(inv);
      return inv;
    }
  }

  private static Pool pool(Inventory inv) {
    assertThat(inv.pools()).hasSize(1);
    assertThat(inv.pools().get(0).name()).isEqualTo("node-a");
    return inv.pools().get(0);
  }

  private static Device device(Inventory inv, String name) {
    return pool(inv).devices().stream()
        .filter(d -> d.name().equals(name))
        .findFirst()
        .orElseThrow(() -> new AssertionError("no device " + name + " in " + names(inv)));
  }

  private static List<String> names(Inventory inv) {
    return pool(inv).devices().stream().map(Device::name).toList();
  }

  @Test
  void noGpusGiveAnEmptyPool() throws Exception {
    Inventory inv = discover(Map.of(), "gpus=0");
    assertThat(pool(inv).devices()).isEmpty();
    assertThat(pool(inv).counterSets()).isEmpty();
  }

  @Test
  void oneGpuWithEveryAttribute() throws Exception {
    Inventory inv = discover(Map.of(), "gpus=1");
    assertThat(names(inv)).containsExactly("gpu-0");
    Device d = device(inv, "gpu-0");
    assertThat(d.attributes())
        .containsExactlyInAnyOrderEntriesOf(
            Map.of(
                "type",
                DeviceAttribute.of("gpu"),
                "uuid",
                DeviceAttribute.of("GPU-0000a100-1111-4222-8333-000000000000"),
                "productName",
                DeviceAttribute.of("NVIDIA A100-SXM4-80GB"),
                "brand",
                DeviceAttribute.of("Nvidia"),
                "architecture",
                DeviceAttribute.of("Ampere"),
                "cudaComputeCapability",
                DeviceAttribute.version("8.0.0"),
                "driverVersion",
                DeviceAttribute.version("550.54.15"),
                "cudaDriverVersion",
                DeviceAttribute.version("12.4.0"),
                StandardAttributes.PCI_BUS_ID,
                DeviceAttribute.of("0000:07:00.0")));
    assertThat(d.capacity()).containsOnlyKeys("memory");
    assertThat(d.capacity().get("memory").value()).isEqualTo(Quantity.parse("80Gi"));
    assertThat(d.capacity().get("memory").value().toString()).isEqualTo("80Gi");
    assertThat(d.consumesCounters()).isEmpty();
  }

  @Test
  void eightGpusNamedByMinorInOrder() throws Exception {
    Inventory inv =
        discover(
            Map.of(),
            "gpus=8",
            // NVML index order need not follow the minor numbers.
            "gpu.0.minor=7",
            "gpu.7.minor=0",
            "gpu.3.name=NVIDIA H100 80GB HBM3",
            "gpu.3.arch=9",
            "gpu.3.cc=9.0",
            "gpu.3.busid=00000001:AB:00.0");
    assertThat(names(inv))
        .containsExactly("gpu-0", "gpu-1", "gpu-2", "gpu-3", "gpu-4", "gpu-5", "gpu-6", "gpu-7");
    assertThat(device(inv, "gpu-0").attribute("uuid").orElseThrow())
        .isEqualTo(DeviceAttribute.of("GPU-0000a100-1111-4222-8333-000000000007"));
    Device h100 = device(inv, "gpu-3");
    assertThat(h100.attribute("productName")).contains(DeviceAttribute.of("NVIDIA H100 80GB HBM3"));
    assertThat(h100.attribute("architecture")).contains(DeviceAttribute.of("Hopper"));
    assertThat(h100.attribute("cudaComputeCapability")).contains(DeviceAttribute.version("9.0.0"));
    assertThat(h100.attribute(StandardAttributes.PCI_BUS_ID))
        .contains(DeviceAttribute.of("0001:ab:00.0"));
  }

  @Test
  void memoryNotSupportedLeavesOutOnlyTheCapacity() throws Exception {
    Inventory inv = discover(Map.of(), "gpus=2", "gpu.1.fail.nvmlDeviceGetMemoryInfo=3");
    assertThat(device(inv, "gpu-0").capacity()).containsOnlyKeys("memory");
    Device d = device(inv, "gpu-1");
    assertThat(d.capacity()).isEmpty();
    assertThat(d.attributes()).containsKeys("uuid", "productName", "driverVersion");
  }

  @Test
  void versionsAreNormalizedToStrictSemver() throws Exception {
    Inventory inv = discover(Map.of(), "driver_version=535.104.05", "cuda_version=12020");
    Device d = device(inv, "gpu-0");
    assertThat(d.attribute("driverVersion")).contains(DeviceAttribute.version("535.104.5"));
    assertThat(d.attribute("cudaDriverVersion")).contains(DeviceAttribute.version("12.2.0"));

    inv = discover(Map.of(), "driver_version=550.54");
    assertThat(device(inv, "gpu-0").attribute("driverVersion"))
        .contains(DeviceAttribute.version("550.54.0"));
  }

  @Test
  void aDriverVersionThatIsNoVersionIsLeftOutNotPublishedBroken() throws Exception {
    Inventory inv = discover(Map.of(), "driver_version=550.54.15-custom", "cuda_version=0");
    Device d = device(inv, "gpu-0");
    assertThat(d.attributes()).doesNotContainKeys("driverVersion", "cudaDriverVersion");
    assertThat(d.attributes()).containsKey("productName");
  }

  @Test
  void aLostGpuIsLeftOutAndTheOthersArePublished() throws Exception {
    fake.configure(tmp, "gpus=3", "gpu.1.lost=1");
    try (NvidiaDeviceProvider p = new NvidiaDeviceProvider()) {
      Inventory inv = p.discover(fake.context(tmp));
      assertThat(names(inv)).containsExactly("gpu-0", "gpu-2");
      assertThat(p.lastProblems())
          .singleElement()
          .asString()
          .contains("NVML index 1")
          .contains("GPU_IS_LOST (15)");
    }
  }

  @Test
  void aGpuThatDisappearsBetweenCountAndHandleIsLeftOut() throws Exception {
    Inventory inv = discover(Map.of(), "gpus=2", "gpu.0.fail.nvmlDeviceGetHandleByIndex_v2=6");
    assertThat(names(inv)).containsExactly("gpu-1");
  }

  @Test
  void failingToCountGpusFailsDiscoveryWithTheFunctionAndCode() throws Exception {
    fake.configure(tmp, "fail.nvmlDeviceGetCount_v2=9");
    try (NvidiaDeviceProvider p = new NvidiaDeviceProvider()) {
      assertThatThrownBy(() -> p.discover(fake.context(tmp)))
          .isInstanceOf(NvmlException.class)
          .hasMessage("nvmlDeviceGetCount_v2 failed: DRIVER_NOT_LOADED (9): Unknown Error");
    }
  }

  @Test
  void migCapableButDisabledIsAWholeGpu() throws Exception {
    Inventory inv = discover(Map.of(), "gpus=1", "gpu.0.mig=0", "gpu.0.instances=");
    assertThat(names(inv)).containsExactly("gpu-0");
  }

  @Test
  void staticMigDevicesReplaceTheirGpu() throws Exception {
    Inventory inv =
        discover(
            Map.of(), "gpus=2", "gpu.0.mig=1", "gpu.0.instances=0@0,0@1,2@4,7@2", "gpu.1.mig=0");
    assertThat(names(inv))
        .containsExactly(
            "gpu-0-mig-1g10gb-19-0",
            "gpu-0-mig-1g10gb-19-1",
            "gpu-0-mig-3g40gb-9-4",
            "gpu-0-mig-1g10gb-me-20-2",
            "gpu-1");
    Device d = device(inv, "gpu-0-mig-3g40gb-9-4");
    assertThat(d.attribute("type")).contains(DeviceAttribute.of("mig"));
    assertThat(d.attribute("profile")).contains(DeviceAttribute.of("3g.40gb"));
    assertThat(d.attribute("parentUUID"))
        .contains(DeviceAttribute.of("GPU-0000a100-1111-4222-8333-000000000000"));
    assertThat(d.attribute("uuid").orElseThrow().javaValue().toString()).startsWith("MIG-");
    assertThat(d.attribute("productName")).contains(DeviceAttribute.of("NVIDIA A100-SXM4-80GB"));
    assertThat(d.attribute("driverVersion")).contains(DeviceAttribute.version("550.54.15"));
    assertThat(d.attribute(StandardAttributes.PCI_BUS_ID))
        .contains(DeviceAttribute.of("0000:07:00.0"));
    assertThat(d.capacity().keySet())
        .containsExactlyInAnyOrder(
            "multiprocessors",
            "copyEngines",
            "decoders",
            "encoders",
            "jpegEngines",
            "ofaEngines",
            "memory",
            "memorySlice4",
            "memorySlice5",
            "memorySlice6",
            "memorySlice7");
    assertThat(d.capacity().get("multiprocessors").value()).isEqualTo(Quantity.of(42));
    assertThat(d.capacity().get("copyEngines").value()).isEqualTo(Quantity.of(3));
    assertThat(d.capacity().get("memory").value().toString()).isEqualTo("40192Mi");
    // Each MIG device has its own UUID.
    assertThat(
            pool(inv).devices().stream()
                .filter(x -> x.name().contains("mig"))
                .map(x -> x.attribute("uuid").orElseThrow())
                .distinct())
        .hasSize(4);
  }

  @Test
  void computeInstancesSharingAGpuInstanceGetDistinctNames() throws Exception {
    Inventory inv = discover(Map.of(), "gpu.0.mig=1", "gpu.0.instances=1@2/0+0");
    assertThat(names(inv))
        .containsExactly("gpu-0-mig-1c2g20gb-14-2-c0", "gpu-0-mig-1c2g20gb-14-2-c1");
    Device d = device(inv, "gpu-0-mig-1c2g20gb-14-2-c1");
    assertThat(d.attribute("profile")).contains(DeviceAttribute.of("1c.2g.20gb"));
    assertThat(d.capacity().get("multiprocessors").value()).isEqualTo(Quantity.of(14));
  }

  @Test
  void migEnabledWithoutInstancesPublishesNothingForThatGpu() throws Exception {
    Inventory inv = discover(Map.of(), "gpus=2", "gpu.0.mig=1");
    assertThat(names(inv)).containsExactly("gpu-1");
  }

  @Test
  void partitionableMigPublishesCountersAndEveryPlacement() throws Exception {
    Inventory inv =
        discover(
            Map.of("mig-mode", "partitionable"), "gpus=2", "gpu.1.mig_capable=0", "gpu.0.mig=0");
    Pool pool = pool(inv);
    assertThat(pool.counterSets()).hasSize(1);
    CounterSet set = pool.counterSets().get(0);
    assertThat(set.name()).isEqualTo("gpu-0-counter-set");
    assertThat(set.counters())
        .containsEntry("multiprocessors", Counter.of(Quantity.of(98)))
        .containsEntry("copy-engines", Counter.of(Quantity.of(7)))
        .containsEntry("decoders", Counter.of(Quantity.of(5)))
        .containsEntry("jpeg-engines", Counter.of(Quantity.of(1)))
        .containsEntry("ofa-engines", Counter.of(Quantity.of(1)))
        .containsEntry("memory", Counter.of(Quantity.parse("80896Mi")))
        .containsEntry("memory-slice-0", Counter.of(Quantity.of(1)))
        .containsEntry("memory-slice-7", Counter.of(Quantity.of(1)))
        .doesNotContainKey("encoders") // no profile has one
        .hasSize(14);

    // 7 + 3 + 2 + 1 + 1 + 7 + 4 placements, plus the whole GPU; the GPU without MIG stays plain.
    List<String> names = names(inv);
    assertThat(names).hasSize(26 + 1).contains("gpu-0", "gpu-1", "gpu-0-mig-7g80gb-0-0");
    Device whole = device(inv, "gpu-0");
    assertThat(whole.consumesCounters())
        .singleElement()
        .satisfies(
            c -> {
              assertThat(c.counterSet()).isEqualTo("gpu-0-counter-set");
              assertThat(c.counters()).isEqualTo(set.counters());
            });
    assertThat(device(inv, "gpu-1").consumesCounters()).isEmpty();

    Device slot = device(inv, "gpu-0-mig-1g10gb-me-20-3");
    assertThat(slot.attribute("type")).contains(DeviceAttribute.of("mig"));
    assertThat(slot.attribute("profile")).contains(DeviceAttribute.of("1g.10gb+me"));
    assertThat(slot.attributes()).doesNotContainKey("uuid"); // it does not exist yet
    assertThat(slot.consumesCounters().get(0).counters())
        .containsOnly(
            Map.entry("multiprocessors", Counter.of(Quantity.of(14))),
            Map.entry("copy-engines", Counter.of(Quantity.of(1))),
            Map.entry("decoders", Counter.of(Quantity.of(1))),
            Map.entry("jpeg-engines", Counter.of(Quantity.of(1))),
            Map.entry("ofa-engines", Counter.of(Quantity.of(1))),
            Map.entry("memory", Counter.of(Quantity.parse("9728Mi"))),
            Map.entry("memory-slice-3", Counter.of(Quantity.of(1))));
    Device big = device(inv, "gpu-0-mig-3g40gb-9-4");
    assertThat(big.consumesCounters().get(0).counters())
        .containsKeys("memory-slice-4", "memory-slice-5", "memory-slice-6", "memory-slice-7")
        .doesNotContainKey("memory-slice-3");
  }

  @Test
  void eightGpusWithPartitionableMigStayWithinTheApiLimits() throws Exception {
    Inventory inv = discover(Map.of("mig-mode", "partitionable"), "gpus=8", "gpu.0.mig=1");
    assertThat(pool(inv).counterSets()).hasSize(8);
    assertThat(pool(inv).devices()).hasSize(8 * 26);
    for (Device d : pool(inv).devices()) {
      assertThat(d.attributes().size() + d.capacity().size()).isLessThanOrEqualTo(32);
    }
  }

  @Test
  void eightGpusWithStaticMigStayWithinTheApiLimits() throws Exception {
    String[] scenario = new String[17];
    scenario[0] = "gpus=8";
    for (int i = 0; i < 8; i++) {
      scenario[1 + 2 * i] = "gpu." + i + ".mig=1";
      scenario[2 + 2 * i] = "gpu." + i + ".instances=0@0,0@1,0@2,0@3,0@4,0@5,0@6";
    }
    Inventory inv = discover(Map.of(), scenario);
    assertThat(pool(inv).devices()).hasSize(56);
    Optional<Device> widest =
        pool(inv).devices().stream()
            .max(
                (a, b) ->
                    Integer.compare(
                        a.attributes().size() + a.capacity().size(),
                        b.attributes().size() + b.capacity().size()));
    assertThat(widest.orElseThrow().attributes().size() + widest.get().capacity().size())
        .isLessThanOrEqualTo(32);
  }

  @Test
  void longProductNamesAreCutToSixtyFourBytes() throws Exception {
    String longName = "NVIDIA " + "Ü".repeat(40);
    Inventory inv = discover(Map.of(), "gpu.0.name=" + longName);
    String published =
        (String) device(inv, "gpu-0").attribute("productName").orElseThrow().javaValue();
    assertThat(longName).startsWith(published);
    assertThat(published.getBytes(java.nio.charset.StandardCharsets.UTF_8).length)
        .isLessThanOrEqualTo(64)
        .isGreaterThan(60);
  }
}
