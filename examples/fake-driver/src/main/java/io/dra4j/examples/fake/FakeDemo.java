package io.dra4j.examples.fake;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.dra4j.api.claim.ClaimRef;
import io.dra4j.api.device.Device;
import io.dra4j.api.device.DeviceAttribute;
import io.dra4j.api.device.StandardAttributes;
import io.dra4j.api.health.HealthStatus;
import io.dra4j.fake.FakeDeviceProvider;
import io.dra4j.kube.DeviceClass;
import io.dra4j.kube.DeviceRequestAllocationResult;
import io.dra4j.kube.HttpKubeClient;
import io.dra4j.kube.KubeJson;
import io.dra4j.kube.Pod;
import io.dra4j.kube.ResourceClaim;
import io.dra4j.kube.ResourceSlice;
import io.dra4j.launcher.DeviceClassGenerator;
import io.dra4j.launcher.logging.LineLogging;
import io.dra4j.numa.NumaEnricher;
import io.dra4j.runtime.DraDriver;
import io.dra4j.runtime.files.AtomicFiles;
import io.dra4j.testkit.kubelet.ClaimResult;
import io.dra4j.testkit.kubelet.DeviceHealthReport;
import io.dra4j.testkit.kubelet.DeviceResult;
import io.dra4j.testkit.kubelet.HealthReport;
import io.dra4j.testkit.kubelet.HealthWatch;
import io.dra4j.testkit.kubelet.KubeletSimulator;
import io.dra4j.testkit.kubelet.PluginInstance;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Predicate;
import java.util.function.Supplier;
import org.slf4j.event.Level;

/**
 * The demo: the Kubernetes 1.37 extended-resource story end to end on one machine.
 *
 * <p>In one process: the test kit's fake API server, the fake driver (spi-fake devices with
 * spi-numa topology from a small sample sysfs tree), the kubelet simulator talking to the driver
 * over its real Unix sockets, and the test kit's allocator playing the scheduler. A DeviceClass
 * maps {@code example.com/gpu} to the driver's devices; an unchanged pod asking for {@code
 * example.com/gpu: 1} gets one. With {@code --kubeconfig} ({@code ./demo.sh --cluster}) the API
 * server and the scheduler are a real Kubernetes control plane instead (see {@link DemoCluster}).
 */
final class FakeDemo {
  static final String DRIVER = "gpu.example.com";
  static final String NODE = "demo-node";
  private static final Duration WAIT = Duration.ofSeconds(30);
  private static final String POD_YAML =
      String.join(
          "\n",
          "apiVersion: v1",
          "kind: Pod",
          "metadata:",
          "  name: cuda-job",
          "  namespace: default",
          "spec:",
          "  containers:",
          "  - name: main",
          "    image: registry.example.com/cuda-sample:12.4",
          "    resources:",
          "      limits:",
          "        example.com/gpu: 1",
          "");

  private final PrintStream out;
  private final boolean quiet;
  private final ObjectMapper yaml = KubeJson.yaml();
  private int step;

  private FakeDemo(PrintStream out, boolean quiet) {
    this.out = out;
    this.quiet = quiet;
  }

  static int run(List<String> args, PrintStream out, PrintStream err) {
    boolean keep = false;
    boolean quiet = false;
    Optional<Path> cluster = Optional.empty();
    for (int i = 0; i < args.size(); i++) {
      String a = args.get(i);
      if (a.equals("--keep")) {
        keep = true;
      } else if (a.equals("--quiet")) {
        quiet = true;
      } else if (a.equals("--kubeconfig") && i + 1 < args.size()) {
        cluster = Optional.of(Path.of(args.get(++i)));
      } else {
        err.println(
            "error: unknown demo flag "
                + a
                + " (use --keep, --quiet, or --kubeconfig FILE for a real cluster whose node "
                + NODE
                + " exists; ./demo.sh --cluster sets one up)");
        return 2;
      }
    }
    // The story goes to stdout; the components' own logs would drown it.
    LineLogging.install(Level.WARN);
    try {
      new FakeDemo(out, quiet).play(keep, cluster);
      return 0;
    } catch (Exception e) {
      err.println("demo failed: " + e);
      e.printStackTrace(err);
      return 1;
    }
  }

  private void play(boolean keep, Optional<Path> cluster) throws Exception {
    Path work = Files.createTempDirectory("dra4j-demo-");
    title("dra4j demo: an unchanged pod asking for example.com/gpu: 1 gets a DRA device");
    say("working directory " + work);

    DemoCluster api =
        cluster.isPresent()
            ? DemoCluster.real(cluster.get(), NODE)
            : DemoCluster.embedded(work.resolve("kubeconfig"), NODE);
    HttpKubeClient client = api.client();
    KubeletSimulator kubelet = null;
    DraDriver driver = null;
    try {
      step(api.description());
      say("serving " + api.url() + "; kubeconfig " + api.kubeconfig());

      step("The cluster admin's part: a Node and a DeviceClass with extendedResourceName");
      say(api.nodeReady());
      String classYaml =
          DeviceClassGenerator.yaml(DRIVER, DRIVER, Optional.of("example.com/gpu"), List.of());
      DeviceClass deviceClass = yaml.readValue(classYaml, DeviceClass.class);
      client.create(DeviceClass.TYPE, deviceClass);
      show(classYaml);

      step("The driver starts: 4 fake GPUs, topology attributes from sysfs");
      Path sysfs = SampleSysfs.write(work.resolve("sys"));
      FakeDeviceProvider provider = new FakeDeviceProvider();
      Path registry = Files.createDirectories(work.resolve("plugins_registry"));
      Path cdi = Files.createDirectories(work.resolve("cdi"));
      kubelet = KubeletSimulator.start(registry);
      driver =
          DraDriver.builder()
              .driverName(DRIVER)
              .nodeName(NODE)
              .provider(provider)
              .enricher(new NumaEnricher())
              .kubeClient(client)
              .registrarDirectory(registry)
              .pluginDirectory(work.resolve("plugins").resolve(DRIVER))
              .cdiDirectory(cdi)
              .sysfsRoot(sysfs)
              .config(Map.of("devices", "4", "pci-bus-ids", String.join(",", SampleSysfs.BUS_IDS)))
              .healthRecoveryDelay(Duration.ofSeconds(2))
              .build();
      driver.start();
      PluginInstance plugin = kubelet.awaitPlugin(DRIVER, WAIT);
      say(
          "registered with the kubelet: "
              + plugin.draVersion().service()
              + plugin.healthVersion().map(h -> ", health stream " + h.service()).orElse("")
              + "; sockets "
              + driver.registrationSocket().orElseThrow().getFileName()
              + " and "
              + driver.draSocket().orElseThrow().getFileName());

      step("The driver publishes its ResourceSlices");
      require(driver.awaitPublished(WAIT), "slices published");
      for (ResourceSlice s : api.slices()) {
        say(
            "slice "
                + s.metadata().name()
                + ": pool "
                + s.spec().pool().name()
                + " (generation "
                + s.spec().pool().generation()
                + "), node "
                + s.spec().nodeName().orElse("-")
                + ", "
                + s.spec().devices().size()
                + " devices");
        for (Device d : s.spec().devices()) {
          say("  " + describe(d));
        }
      }

      step("A user submits an unchanged pod (no DRA in its spec)");
      show(POD_YAML);
      Pod pod = yaml.readValue(POD_YAML, Pod.class);
      client.create(Pod.TYPE, pod);

      step(api.schedulerDescription() + ": a claim for the extended resource");
      ResourceClaim claim = api.schedule("default", "cuda-job", this::say);
      for (DeviceRequestAllocationResult r :
          claim.status().allocation().orElseThrow().devices().results()) {
        say(
            "allocated: request "
                + r.request()
                + " -> "
                + r.driver()
                + "/"
                + r.pool()
                + "/"
                + r.device());
      }
      say(
          "annotation "
              + ResourceClaim.EXTENDED_RESOURCE_CLAIM_ANNOTATION
              + "="
              + claim
                  .metadata()
                  .annotations()
                  .get(ResourceClaim.EXTENDED_RESOURCE_CLAIM_ANNOTATION));

      step("The kubelet calls NodePrepareResources");
      ClaimRef ref =
          ClaimRef.of(
              claim.metadata().namespace(), claim.metadata().name(), claim.metadata().uid());
      ClaimResult prepared = plugin.prepare(List.of(ref)).get(ref.uid());
      require(prepared.isOk(), "prepare: " + prepared.error().orElse(""));
      List<String> cdiIds = new ArrayList<>();
      for (DeviceResult d : prepared.devices()) {
        say(
            "device "
                + d.poolName()
                + "/"
                + d.deviceName()
                + " for requests "
                + d.requestNames()
                + " -> CDI "
                + d.cdiDeviceIds());
        cdiIds.addAll(d.cdiDeviceIds());
      }
      Path spec;
      try (var files = Files.list(cdi)) {
        spec = files.filter(p -> p.toString().endsWith(".json")).findFirst().orElseThrow();
      }
      say("CDI spec written: " + spec);
      String specJson = Files.readString(spec);
      show(specJson);
      say("the container would see:");
      for (String env : containerEnv(specJson, cdiIds)) {
        say("  " + env);
      }
      ResourceClaim stored = client.get(ResourceClaim.TYPE, ref.namespace(), ref.name());
      stored
          .status()
          .devices()
          .forEach(
              s ->
                  say(
                      "claim status written by the driver: "
                          + s.device()
                          + " "
                          + s.conditions().stream()
                              .map(c -> c.type() + "=" + c.status())
                              .toList()));

      step("A device goes bad, and recovers");
      String sick = "gpu-3";
      try (HealthWatch health = plugin.watchHealth()) {
        provider.health().markUnhealthy(sick, "FakeECC", "uncorrectable ECC error (simulated)");
        DeviceHealthReport bad = awaitHealth(health, sick, HealthStatus.UNHEALTHY);
        say("kubelet health stream: " + sick + " " + bad.health() + " \"" + bad.message() + "\"");
        Device tainted = awaitDevice(api, sick, d -> !d.taints().isEmpty());
        say(
            "slice: "
                + sick
                + " tainted "
                + tainted.taints().stream()
                    .map(t -> t.key() + "=" + t.value() + ":" + t.effect().apiName())
                    .toList()
                + " (the scheduler no longer hands it out)");
        provider.health().markHealthy(sick);
        awaitHealth(health, sick, HealthStatus.HEALTHY);
        say("kubelet health stream: " + sick + " HEALTHY again");
        awaitDevice(api, sick, d -> d.taints().isEmpty());
        say("slice: taint lifted after the device stayed healthy for the recovery delay (2 s)");
      }

      if (keep) {
        step("Everything keeps running (--keep); stop with Ctrl-C");
        say("kubeconfig: " + api.kubeconfig());
        say("status: the driver's CDI specs are in " + cdi);
        Thread.currentThread().join();
      }

      step("The pod ends: the kubelet calls NodeUnprepareResources");
      Optional<String> error = plugin.unprepare(List.of(ref)).get(ref.uid());
      require(error.isEmpty(), "unprepare: " + error.orElse(""));
      require(!Files.exists(spec), "CDI spec removed");
      say("unprepared; CDI spec " + spec.getFileName() + " removed");
      title("demo complete");
    } finally {
      if (driver != null) {
        driver.close();
      }
      if (kubelet != null) {
        kubelet.close();
      }
      api.close();
      AtomicFiles.deleteTreeQuietly(work);
    }
  }

  private static String describe(Device d) {
    StringBuilder b = new StringBuilder(d.name());
    d.attribute("model").ifPresent(a -> b.append("  model=").append(a.javaValue()));
    Optional.ofNullable(d.capacity().get("memory"))
        .ifPresent(c -> b.append(" memory=").append(c.value()));
    for (String key :
        List.of(
            StandardAttributes.PCI_BUS_ID,
            StandardAttributes.PCIE_ROOT,
            StandardAttributes.NUMA_NODE)) {
      d.attribute(key)
          .map(DeviceAttribute::javaValue)
          .ifPresent(
              v -> b.append(' ').append(key.substring(key.indexOf('/') + 1)).append('=').append(v));
    }
    return b.toString();
  }

  /** The env a runtime would inject: spec-level edits, then each named device's. */
  private List<String> containerEnv(String specJson, List<String> cdiIds) throws IOException {
    JsonNode spec = KubeJson.mapper().readTree(specJson);
    List<String> env = new ArrayList<>();
    spec.path("containerEdits").path("env").forEach(e -> env.add(e.asText()));
    for (JsonNode device : spec.path("devices")) {
      String qualified = spec.path("kind").asText() + "=" + device.path("name").asText();
      if (cdiIds.contains(qualified)) {
        device.path("containerEdits").path("env").forEach(e -> env.add(e.asText()));
      }
    }
    return env;
  }

  private DeviceHealthReport awaitHealth(HealthWatch watch, String device, HealthStatus status)
      throws InterruptedException {
    long deadline = System.nanoTime() + WAIT.toNanos();
    while (System.nanoTime() < deadline) {
      Optional<HealthReport> report = watch.next(Duration.ofSeconds(1));
      if (report.isPresent()) {
        for (DeviceHealthReport d : report.get().devices()) {
          if (d.deviceName().equals(device) && d.health() == status) {
            return d;
          }
        }
      }
    }
    throw new IllegalStateException("health stream never showed " + device + " " + status);
  }

  private static Device awaitDevice(DemoCluster api, String name, Predicate<Device> condition)
      throws InterruptedException {
    return await(
        "device " + name + " in the published slices",
        () ->
            api.slices().stream()
                .flatMap(s -> s.spec().devices().stream())
                .filter(d -> d.name().equals(name) && condition.test(d))
                .findFirst());
  }

  static <T> T await(String what, Supplier<Optional<T>> probe) throws InterruptedException {
    long deadline = System.nanoTime() + WAIT.toNanos();
    while (System.nanoTime() < deadline) {
      Optional<T> v = probe.get();
      if (v.isPresent()) {
        return v.get();
      }
      Thread.sleep(50);
    }
    throw new IllegalStateException("timed out waiting for " + what);
  }

  private static void require(boolean ok, String what) {
    if (!ok) {
      throw new IllegalStateException("demo step failed: " + what);
    }
  }

  private void title(String text) {
    out.println();
    out.println("== " + text);
  }

  private void step(String text) {
    out.println();
    out.println("[" + (++step) + "] " + text);
  }

  private void say(String text) {
    out.println("    " + text);
  }

  private void show(String block) {
    if (quiet) {
      return;
    }
    for (String line : block.strip().split("\n")) {
      out.println("      | " + line);
    }
  }
}
