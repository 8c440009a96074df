package io.dra4j.nvidia;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.dra4j.api.cdi.ContainerEdits;
import io.dra4j.api.cdi.DeviceNode;
import io.dra4j.api.cdi.Hook;
import io.dra4j.api.cdi.Mount;
import io.dra4j.api.claim.AllocatedDevice;
import io.dra4j.api.claim.ClaimAllocation;
import io.dra4j.api.claim.ClaimRef;
import io.dra4j.api.claim.DeviceException;
import io.dra4j.api.claim.PrepareResult;
import io.dra4j.api.provider.Inventory;
import io.dra4j.api.provider.ProviderContext;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** What prepare hands a container: device nodes, environment, driver files, hooks. */
class CdiEditsTest {
  private static final String LIBS = "usr/lib/x86_64-linux-gnu";
  private static final String HOST_ROOT = "/run/nvidia/driver";
  private static final List<String> RO = List.of("ro", "nosuid", "nodev", "rbind", "rprivate");

  @TempDir Path tmp;
  private FakeNvml fake;
  private Path driverRoot;

  @BeforeEach
  void setUp() throws IOException {
    fake = FakeNvml.current();
    driverRoot = tmp.resolve("driver");
    Path libs = Files.createDirectories(driverRoot.resolve(LIBS));
    for (String lib : List.of("libcuda", "libnvidia-ml", "libnvidia-ptxjitcompiler")) {
      Files.writeString(libs.resolve(lib + ".so.550.54.15"), "fake " + lib);
      Files.createSymbolicLink(libs.resolve(lib + ".so.1"), Path.of(lib + ".so.550.54.15"));
    }
    Files.createSymbolicLink(libs.resolve("libcuda.so"), Path.of("libcuda.so.1"));
    // Not of this driver release: never mounted.
    Files.writeString(libs.resolve("libnvidia-old.so.535.104.05"), "old");
    Files.writeString(libs.resolve("libz.so.1.2.13"), "zlib");
    Files.createSymbolicLink(libs.resolve("libz.so.1"), Path.of("libz.so.1.2.13"));
    // A second name for the same directory must not mount everything twice.
    Files.createSymbolicLink(driverRoot.resolve("lib64"), Path.of(LIBS));
    Path bin = Files.createDirectories(driverRoot.resolve("usr/bin"));
    Files.writeString(bin.resolve("nvidia-smi"), "#!/bin/sh\n");
  }

  @AfterEach
  void nvmlShutDown() {
    if (fake != null) {
      assertThat(fake.initCount()).isZero();
    }
  }

  private ProviderContext context(Map<String, String> extra) {
    Map<String, String> s = new HashMap<>();
    s.put("driver-root", driverRoot.toString());
    s.putAll(extra);
    return fake.context(tmp, s);
  }

  private static ClaimAllocation claim(String... devices) {
    return ClaimAllocation.of(
        ClaimRef.of("default", "gpu-claim", "6f1c0e1e-uid"),
        java.util.Arrays.stream(devices).map(d -> AllocatedDevice.of("gpu", "node-a", d)).toList());
  }

  private ContainerEdits prepareOne(Map<String, String> settings, String device, String... scenario)
      throws Exception {
    fake.configure(tmp, scenario);
    try (NvidiaDeviceProvider p = new NvidiaDeviceProvider()) {
      p.discover(context(settings));
      PrepareResult r = p.prepare(claim(device));
      assertThat(r.devices())
          .singleElement()
          .satisfies(d -> assertThat(d.device().device()).isEqualTo(device));
      return r.devices().get(0).edits();
    }
  }

  private static Mount ro(String host, String container) {
    return Mount.builder(host, container).options(RO).build();
  }

  @Test
  void aGpuGetsItsNodeTheControlNodesAndVoidVisibleDevices() throws Exception {
    ContainerEdits e = prepareOne(Map.of(), "gpu-1", "gpus=2");
    assertThat(e.deviceNodes())
        .containsExactly(
            DeviceNode.required("/dev/nvidia1"),
            DeviceNode.required("/dev/nvidiactl"),
            DeviceNode.required("/dev/nvidia-uvm"),
            DeviceNode.required("/dev/nvidia-uvm-tools"),
            DeviceNode.optional("/dev/nvidia-modeset"));
    assertThat(e.deviceNodes()).allSatisfy(n -> assertThat(n.hostPath()).isEmpty());
    assertThat(e.env()).containsExactly("NVIDIA_VISIBLE_DEVICES=void");
    assertThat(e.hooks()).isEmpty();
  }

  @Test
  void driverLibrariesOfThisReleaseAreMountedReadOnlyWithTheirSonames() throws Exception {
    ContainerEdits e = prepareOne(Map.of(), "gpu-0", "driver_version=550.54.15");
    String d = driverRoot + "/" + LIBS + "/";
    String c = "/" + LIBS + "/";
    assertThat(e.mounts())
        .containsExactly(
            ro(d + "libcuda.so.550.54.15", c + "libcuda.so.550.54.15"),
            ro(d + "libnvidia-ml.so.550.54.15", c + "libnvidia-ml.so.550.54.15"),
            ro(
                d + "libnvidia-ptxjitcompiler.so.550.54.15",
                c + "libnvidia-ptxjitcompiler.so.550.54.15"),
            ro(d + "libcuda.so.550.54.15", c + "libcuda.so"),
            ro(d + "libcuda.so.550.54.15", c + "libcuda.so.1"),
            ro(d + "libnvidia-ml.so.550.54.15", c + "libnvidia-ml.so.1"),
            ro(d + "libnvidia-ptxjitcompiler.so.550.54.15", c + "libnvidia-ptxjitcompiler.so.1"),
            ro(driverRoot + "/usr/bin/nvidia-smi", "/usr/bin/nvidia-smi"));
  }

  @Test
  void hostPathsUseTheHostViewOfTheDriverRoot() throws Exception {
    ContainerEdits e =
        prepareOne(Map.of("host-driver-root", HOST_ROOT), "gpu-0", "driver_version=550.54.15");
    assertThat(e.mounts()).isNotEmpty();
    assertThat(e.mounts())
        .allSatisfy(
            m -> {
              assertThat(m.hostPath()).startsWith(HOST_ROOT + "/");
              assertThat(m.hostPath()).doesNotContain(tmp.toString());
              assertThat(m.containerPath())
                  .doesNotContain(tmp.toString())
                  .doesNotContain(HOST_ROOT);
            });
    assertThat(e.mounts())
        .contains(
            ro(HOST_ROOT + "/" + LIBS + "/libcuda.so.550.54.15", "/" + LIBS + "/libcuda.so.1"),
            ro(HOST_ROOT + "/usr/bin/nvidia-smi", "/usr/bin/nvidia-smi"));
  }

  @Test
  void withTheCdiHookSonameLinksAndTheLinkerCacheAreLeftToTheHook() throws Exception {
    String hook = "/var/lib/kubelet/plugins/gpu.nvidia.com/nvidia-cdi-hook";
    ContainerEdits e =
        prepareOne(Map.of("cdi-hook-path", hook), "gpu-0", "driver_version=550.54.15");
    assertThat(e.mounts())
        .extracting(Mount::containerPath)
        .containsExactly(
            "/" + LIBS + "/libcuda.so.550.54.15",
            "/" + LIBS + "/libnvidia-ml.so.550.54.15",
            "/" + LIBS + "/libnvidia-ptxjitcompiler.so.550.54.15",
            "/usr/bin/nvidia-smi");
    String c = "/" + LIBS + "/";
    assertThat(e.hooks())
        .containsExactly(
            Hook.createContainer(
                hook,
                List.of(
                    "nvidia-cdi-hook",
                    "create-symlinks",
                    "--link",
                    "libcuda.so.1::" + c + "libcuda.so",
                    "--link",
                    "libcuda.so.550.54.15::" + c + "libcuda.so.1",
                    "--link",
                    "libnvidia-ml.so.550.54.15::" + c + "libnvidia-ml.so.1",
                    "--link",
                    "libnvidia-ptxjitcompiler.so.550.54.15::"
                        + c
                        + "libnvidia-ptxjitcompiler.so.1")),
            Hook.createContainer(
                hook, List.of("nvidia-cdi-hook", "update-ldcache", "--folder", "/" + LIBS)));
  }

  @Test
  void aDriverRootWithoutLibrariesStillGivesDeviceNodes() throws Exception {
    ContainerEdits e = prepareOne(Map.of(), "gpu-0", "driver_version=999.1.1");
    assertThat(e.mounts()).extracting(Mount::containerPath).containsExactly("/usr/bin/nvidia-smi");
    assertThat(e.deviceNodes()).contains(DeviceNode.required("/dev/nvidia0"));
  }

  private static int minorIn(Path access) throws IOException {
    Matcher m = Pattern.compile("DeviceFileMinor: (\\d+)").matcher(Files.readString(access));
    assertThat(m.find()).isTrue();
    return Integer.parseInt(m.group(1));
  }

  @Test
  void aMigDeviceGetsItsCapabilityNodesFromProc() throws Exception {
    Path proc = Files.createDirectories(tmp.resolve("proc"));
    Files.writeString(
        proc.resolve("devices"),
        "Character devices:\n  1 mem\n195 nvidia-frontend\n237 nvidia-caps\n508 nvidia-uvm\n\n"
            + "Block devices:\n  8 sd\n239 nvidia-caps-imex\n");
    ContainerEdits e =
        prepareOne(
            Map.of(),
            "gpu-0-mig-3g40gb-9-4",
            "proc_root=" + proc,
            "gpus=2",
            "gpu.0.mig=1",
            "gpu.0.instances=0@0,2@4");
    // The second GPU instance (id 2) with its compute instance 0.
    Path gi = proc.resolve("driver/nvidia/capabilities/gpu0/mig/gi2/access");
    Path ci = proc.resolve("driver/nvidia/capabilities/gpu0/mig/gi2/ci0/access");
    int giMinor = minorIn(gi);
    int ciMinor = minorIn(ci);
    assertThat(giMinor).isNotEqualTo(ciMinor);
    assertThat(e.deviceNodes())
        .containsExactly(
            DeviceNode.required("/dev/nvidia0"),
            DeviceNode.required("/dev/nvidiactl"),
            DeviceNode.required("/dev/nvidia-uvm"),
            DeviceNode.required("/dev/nvidia-uvm-tools"),
            DeviceNode.optional("/dev/nvidia-modeset"),
            DeviceNode.builder("/dev/nvidia-caps/nvidia-cap" + giMinor)
                .character(237, giMinor)
                .build(),
            DeviceNode.builder("/dev/nvidia-caps/nvidia-cap" + ciMinor)
                .character(237, ciMinor)
                .build());
    assertThat(e.env()).containsExactly("NVIDIA_VISIBLE_DEVICES=void");
  }

  @Test
  void withoutProcDevicesTheCapabilityNodesCarryNoNumbers() throws Exception {
    Path proc = Files.createDirectories(tmp.resolve("proc"));
    ContainerEdits e =
        prepareOne(
            Map.of(),
            "gpu-0-mig-1g10gb-19-0",
            "proc_root=" + proc,
            "gpu.0.mig=1",
            "gpu.0.instances=0@0");
    int giMinor = minorIn(proc.resolve("driver/nvidia/capabilities/gpu0/mig/gi1/access"));
    assertThat(e.deviceNodes())
        .contains(DeviceNode.required("/dev/nvidia-caps/nvidia-cap" + giMinor));
  }

  @Test
  void aMissingCapabilityFileFailsTheClaimNamingTheFile() throws Exception {
    fake.configure(tmp, "gpu.0.mig=1", "gpu.0.instances=0@0"); // no proc_root: no files
    try (NvidiaDeviceProvider p = new NvidiaDeviceProvider()) {
      p.discover(context(Map.of()));
      assertThatThrownBy(() -> p.prepare(claim("gpu-0-mig-1g10gb-19-0")))
          .isInstanceOf(DeviceException.class)
          .hasMessageStartingWith("gpu-0-mig-1g10gb-19-0: ")
          .hasMessageContaining(
              tmp.resolve("proc/driver/nvidia/capabilities/gpu0/mig/gi1/access").toString())
          .hasMessageContaining("does not exist");
    }
  }

  @Test
  void everyDeviceOfAClaimIsPrepared() throws Exception {
    fake.configure(tmp, "gpus=4");
    try (NvidiaDeviceProvider p = new NvidiaDeviceProvider()) {
      p.discover(context(Map.of()));
      PrepareResult r = p.prepare(claim("gpu-3", "gpu-1"));
      assertThat(r.devices())
          .extracting(d -> d.edits().deviceNodes().get(0).path())
          .containsExactly("/dev/nvidia3", "/dev/nvidia1");
    }
  }

  @Test
  void unknownDevicesAndForeignPoolsAreRefused() throws Exception {
    fake.configure(tmp, "gpus=1");
    try (NvidiaDeviceProvider p = new NvidiaDeviceProvider()) {
      Inventory inv = p.discover(context(Map.of()));
      assertThat(inv.pools().get(0).devices()).hasSize(1);
      assertThatThrownBy(() -> p.prepare(claim("gpu-5")))
          .isInstanceOf(DeviceException.class)
          .hasMessage("gpu-5: no such device in the last discovery of this driver");
      ClaimAllocation foreign =
          ClaimAllocation.of(
              ClaimRef.of("default", "c", "u"),
              List.of(AllocatedDevice.of("gpu", "node-b", "gpu-0")));
      assertThatThrownBy(() -> p.prepare(foreign))
          .isInstanceOf(DeviceException.class)
          .hasMessageContaining("pool node-b is not this node's pool node-a");
    }
  }

  @Test
  void anUnsupportedSharingStrategyFailsTheClaim() throws Exception {
    fake.configure(tmp, "gpus=1");
    try (NvidiaDeviceProvider p = new NvidiaDeviceProvider()) {
      p.discover(context(Map.of()));
      AllocatedDevice d =
          AllocatedDevice.of("gpu", "node-a", "gpu-0")
              .withConfig(new GpuConfig(new GpuConfig.Sharing("MPS")));
      ClaimAllocation c = ClaimAllocation.of(ClaimRef.of("default", "c", "u"), List.of(d));
      assertThatThrownBy(() -> p.prepare(c))
          .isInstanceOf(DeviceException.class)
          .hasMessage(
              "gpu-0: field \"sharing.strategy\": \"MPS\" is not supported yet; only"
                  + " \"Exclusive\" is");
    }
  }
}
