package io.dra4j.nvidia.nvml;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.dra4j.nvidia.FakeNvml;
import io.dra4j.nvidia.nvml.Nvml.DeviceHandle;
import io.dra4j.nvidia.nvml.Nvml.GpuInstanceProfile;
import io.dra4j.nvidia.nvml.Nvml.Placement;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The JNA layer itself: struct layouts, versioned symbols, return codes, loading. */
class NvmlBindingTest {
  @TempDir Path tmp;

  private static Nvml load(FakeNvml fake) {
    return NvmlLoader.load(Path.of("/nonexistent"), Optional.of(fake.library()));
  }

  @Test
  void returnCodesAreTheDocumentedOnes() {
    assertThat(NvmlReturn.of(0)).isEqualTo(NvmlReturn.SUCCESS);
    assertThat(NvmlReturn.of(3)).isEqualTo(NvmlReturn.NOT_SUPPORTED);
    assertThat(NvmlReturn.of(9)).isEqualTo(NvmlReturn.DRIVER_NOT_LOADED);
    assertThat(NvmlReturn.of(12)).isEqualTo(NvmlReturn.LIBRARY_NOT_FOUND);
    assertThat(NvmlReturn.of(15)).isEqualTo(NvmlReturn.GPU_IS_LOST);
    assertThat(NvmlReturn.of(25)).isEqualTo(NvmlReturn.ARGUMENT_VERSION_MISMATCH);
    assertThat(NvmlReturn.of(30)).isEqualTo(NvmlReturn.RESET_TYPE_NOT_SUPPORTED);
    assertThat(NvmlReturn.of(999)).isEqualTo(NvmlReturn.UNKNOWN);
    assertThat(NvmlReturn.of(31)).isEqualTo(NvmlReturn.UNRECOGNIZED);
    assertThat(NvmlReturn.of(-1)).isEqualTo(NvmlReturn.UNRECOGNIZED);
    Set<Integer> codes =
        Arrays.stream(NvmlReturn.values()).map(NvmlReturn::code).collect(Collectors.toSet());
    assertThat(codes).hasSize(NvmlReturn.values().length);
    for (int c = 0; c <= 30; c++) {
      assertThat(NvmlReturn.of(c).code()).as("code %d is named", c).isEqualTo(c);
    }
  }

  @Test
  void exceptionsNameTheFunctionAndTheCode() {
    NvmlException e = new NvmlException("nvmlDeviceGetUUID", 15, "GPU is lost");
    assertThat(e).hasMessage("nvmlDeviceGetUUID failed: GPU_IS_LOST (15): GPU is lost");
    assertThat(e.gpuLost()).isTrue();
    assertThat(new NvmlException("f", 4242, "")).hasMessage("f failed: UNRECOGNIZED (4242)");
  }

  @Test
  void aMissingLibraryNamesEveryPathTried() {
    Path root = tmp.resolve("driver");
    assertThat(NvmlLoader.candidates(root))
        .containsExactly(
            root.resolve("usr/lib64/libnvidia-ml.so.1"),
            root.resolve("usr/lib/x86_64-linux-gnu/libnvidia-ml.so.1"),
            root.resolve("usr/lib/aarch64-linux-gnu/libnvidia-ml.so.1"),
            root.resolve("lib64/libnvidia-ml.so.1"),
            root.resolve("usr/lib/libnvidia-ml.so.1"));
    assertThatThrownBy(() -> NvmlLoader.load(root, Optional.empty()))
        .isInstanceOfSatisfying(
            NvmlUnavailableException.class,
            e -> {
              assertThat(e.tried()).hasSize(5);
              for (Path p : NvmlLoader.candidates(root)) {
                assertThat(e.getMessage()).contains(p + " (not found)");
              }
              assertThat(e.getMessage()).contains("driver-root");
            });
  }

  @Test
  void aFileThatIsNoLibraryGivesTheLoadersReason() throws Exception {
    Path bogus = Files.writeString(tmp.resolve("libnvidia-ml.so.1"), "not an ELF file");
    assertThatThrownBy(() -> NvmlLoader.load(tmp, Optional.of(bogus)))
        .isInstanceOf(NvmlUnavailableException.class)
        .hasMessageContaining(bogus.toString())
        .hasCauseInstanceOf(UnsatisfiedLinkError.class);
  }

  @Test
  void theLibraryIsFoundByItsSonameUnderADriverRoot() throws Exception {
    FakeNvml fake = FakeNvml.current();
    fake.configure(tmp, "gpus=2");
    Path root = tmp.resolve("driver");
    Files.createDirectories(root.resolve("usr/lib/x86_64-linux-gnu"));
    Files.createSymbolicLink(
        root.resolve("usr/lib/x86_64-linux-gnu/libnvidia-ml.so.1"), fake.library());
    Nvml nvml = NvmlLoader.load(root, Optional.empty());
    assertThat(nvml.toString()).contains(root.resolve("usr/lib/x86_64-linux-gnu").toString());
    nvml.init();
    try {
      assertThat(nvml.deviceCount()).isEqualTo(2);
    } finally {
      nvml.shutdown();
    }
  }

  @Test
  void structsAndStringsCrossTheBoundaryIntact() throws Exception {
    FakeNvml fake = FakeNvml.current();
    fake.configure(
        tmp,
        "gpus=1",
        "gpu.0.busid=00000000:C1:00.0",
        "gpu.0.memory=42949672960",
        "gpu.0.mig=1",
        "gpu.0.instances=2@4");
    Nvml nvml = load(fake);
    nvml.init();
    try {
      DeviceHandle gpu = nvml.deviceByIndex(0);
      assertThat(nvml.systemDriverVersion()).isEqualTo("550.54.15");
      assertThat(nvml.systemCudaDriverVersion()).isEqualTo(12040);
      assertThat(nvml.minorNumber(gpu)).isZero();
      assertThat(nvml.uuid(gpu)).isEqualTo("GPU-0000a100-1111-4222-8333-000000000000");
      assertThat(nvml.pciBusId(gpu)).isEqualTo("00000000:C1:00.0");
      assertThat(nvml.memoryTotal(gpu)).contains(40L << 30);
      assertThat(nvml.migMode(gpu)).contains(new Nvml.MigMode(true, true));

      // The v2 profile struct: the fake checks the version word (size | 2 << 24), so a wrong
      // layout fails with ARGUMENT_VERSION_MISMATCH instead of returning data.
      GpuInstanceProfile p = nvml.gpuInstanceProfile(gpu, 2).orElseThrow();
      assertThat(p)
          .isEqualTo(new GpuInstanceProfile(2, 9, 3, 2, 42, 3, 2, 0, 0, 0, 40192, "MIG 3g.40gb"));
      assertThat(nvml.gpuInstanceProfile(gpu, 5)).isEmpty(); // NOT_SUPPORTED
      assertThat(nvml.gpuInstanceProfile(gpu, 99)).isEmpty(); // INVALID_ARGUMENT
      assertThat(nvml.gpuInstancePossiblePlacements(gpu, 9))
          .containsExactly(new Placement(0, 4), new Placement(4, 4));

      DeviceHandle mig = nvml.migDeviceByIndex(gpu, 0).orElseThrow();
      assertThat(nvml.migDeviceByIndex(gpu, 1)).isEmpty();
      assertThat(nvml.uuid(mig)).startsWith("MIG-").isNotEqualTo(nvml.uuid(gpu));
      int gi = nvml.gpuInstanceId(mig);
      Nvml.GpuInstanceHandle giHandle = nvml.gpuInstanceById(gpu, gi);
      assertThat(nvml.gpuInstanceInfo(giHandle))
          .isEqualTo(new Nvml.GpuInstanceInfo(gi, 9, new Placement(4, 4)));
      Nvml.ComputeInstanceInfo ci =
          nvml.computeInstanceInfo(nvml.computeInstanceById(giHandle, nvml.computeInstanceId(mig)));
      assertThat(ci.placement()).isEqualTo(new Placement(0, 3));
      assertThat(nvml.computeInstanceProfile(giHandle, ci.profileId()).orElseThrow().sliceCount())
          .isEqualTo(3);

      Nvml.EventSetHandle set = nvml.createEventSet();
      nvml.registerEvents(gpu, Nvml.EVENT_XID_CRITICAL, set);
      assertThat(nvml.waitForEvent(set, 1)).isEmpty(); // TIMEOUT
      fake.control().fake_nvml_inject_event(0, FakeNvml.XID, 79, 3, 0);
      assertThat(nvml.waitForEvent(set, 10_000))
          .contains(new Nvml.Event(gpu, Nvml.EVENT_XID_CRITICAL, 79, 3, 0));
      nvml.freeEventSet(set);
    } finally {
      nvml.shutdown();
    }
    assertThatThrownBy(nvml::deviceCount)
        .isInstanceOfSatisfying(
            NvmlException.class,
            e -> {
              assertThat(e.function()).isEqualTo("nvmlDeviceGetCount_v2");
              assertThat(e.code()).isEqualTo(NvmlReturn.UNINITIALIZED);
              assertThat(e.rawCode()).isEqualTo(1);
            })
        .hasMessage("nvmlDeviceGetCount_v2 failed: UNINITIALIZED (1): Uninitialized");
  }

  @Test
  void notSupportedIsAnEmptyResultOnlyWhereTolerated() throws Exception {
    FakeNvml fake = FakeNvml.current();
    fake.configure(
        tmp,
        "gpu.0.fail.nvmlDeviceGetMemoryInfo=3",
        "gpu.0.mig_capable=0",
        "fail.nvmlDeviceGetBrand=3");
    Nvml nvml = load(fake);
    nvml.init();
    try {
      DeviceHandle gpu = nvml.deviceByIndex(0);
      assertThat(nvml.memoryTotal(gpu)).isEmpty();
      assertThat(nvml.migMode(gpu)).isEmpty();
      assertThatThrownBy(() -> nvml.brand(gpu))
          .isInstanceOf(NvmlException.class)
          .hasMessageStartingWith("nvmlDeviceGetBrand failed: NOT_SUPPORTED (3)");
    } finally {
      nvml.shutdown();
    }
  }

  @Test
  void oldDriversWithoutVersionedSymbolsStillWork() throws Exception {
    FakeNvml legacy = FakeNvml.legacy();
    legacy.configure(tmp, "gpus=1", "cuda_version=11040");
    Nvml nvml = load(legacy);
    nvml.init(); // nvmlInitWithFlags is missing: falls back to nvmlInit_v2
    try {
      assertThat(legacy.initCount()).isEqualTo(1);
      assertThat(nvml.systemCudaDriverVersion()).isEqualTo(11040); // unversioned symbol
      assertThat(nvml.deviceCount()).isEqualTo(1);
    } finally {
      nvml.shutdown();
    }
    assertThat(legacy.initCount()).isZero();
  }

  @Test
  void initFailuresCarryTheCode() throws Exception {
    FakeNvml fake = FakeNvml.current();
    fake.configure(tmp, "init_error=9");
    Nvml nvml = load(fake);
    assertThatThrownBy(nvml::init)
        .isInstanceOf(NvmlException.class)
        .hasMessageStartingWith("nvmlInitWithFlags failed: DRIVER_NOT_LOADED (9)");
    assertThat(fake.initCount()).isZero();
    fake.configure(tmp, "gpus=0");
    nvml.init(); // a later attempt works once the driver is there
    try {
      assertThat(nvml.deviceCount()).isZero();
    } finally {
      nvml.shutdown();
    }
  }

  @Test
  void theFirstDirectoryInSearchOrderWins() throws Exception {
    FakeNvml fake = FakeNvml.current();
    Path root = tmp.resolve("driver");
    for (String dir : List.of("usr/lib", "usr/lib64")) {
      Files.createDirectories(root.resolve(dir));
      Files.createSymbolicLink(root.resolve(dir).resolve("libnvidia-ml.so.1"), fake.library());
    }
    assertThat(NvmlLoader.load(root, Optional.empty()).toString())
        .contains(root.resolve("usr/lib64/libnvidia-ml.so.1").toString());
  }
}
