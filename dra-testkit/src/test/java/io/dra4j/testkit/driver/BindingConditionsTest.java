package io.dra4j.testkit.driver;

import static org.assertj.core.api.Assertions.assertThat;

import io.dra4j.api.binding.BindingRequest;
import io.dra4j.api.binding.BindingStatus;
import io.dra4j.api.binding.DeviceBinding;
import io.dra4j.api.device.NodeSelector;
import io.dra4j.api.status.DeviceStatus;
import io.dra4j.fake.FakeDeviceProvider;
import io.dra4j.kube.AllocatedDeviceStatus;
import io.dra4j.kube.AllocationResult;
import io.dra4j.kube.ApplyOptions;
import io.dra4j.kube.Condition;
import io.dra4j.kube.DeviceAllocationResult;
import io.dra4j.kube.DeviceClass;
import io.dra4j.kube.DeviceRequest;
import io.dra4j.kube.DeviceRequestAllocationResult;
import io.dra4j.kube.DeviceSelector;
import io.dra4j.kube.ExactDeviceRequest;
import io.dra4j.kube.HttpKubeClient;
import io.dra4j.kube.KubeJson;
import io.dra4j.kube.ObjectMeta;
import io.dra4j.kube.Pod;
import io.dra4j.kube.ResourceClaim;
import io.dra4j.kube.ResourceClaimSpec;
import io.dra4j.kube.ResourceClaimStatus;
import io.dra4j.runtime.DraDriver;
import io.dra4j.runtime.internal.claims.BindingController;
import io.dra4j.runtime.testsupport.Await;
import io.dra4j.testkit.allocator.ClusterAllocator;
import io.dra4j.testkit.allocator.PodDecision;
import io.dra4j.testkit.apiserver.FakeApiServer;
import io.dra4j.testkit.kubelet.KubeletSimulator;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Binding conditions (KEP-5007) with the test kit's API server: the runtime reports a provider's
 * attachment as conditions in {@code status.devices}, and the test kit's scheduler waits for them
 * in PreBind as kube-scheduler does.
 */
class BindingConditionsTest {
  static final String DRIVER = "gpu.example.com";
  static final String NODE = "node-1";
  static final Duration WAIT = Duration.ofSeconds(30);

  @TempDir Path tmp;
  FakeApiServer api;
  HttpKubeClient client;

  @BeforeEach
  void setUp() {
    api = FakeApiServer.start();
    client = api.newClient();
  }

  @AfterEach
  void tearDown() {
    client.close();
    api.close();
  }

  /** A provider whose answers the test sets per device; records every question and release. */
  static final class Scripted implements DeviceBinding {
    final Map<String, BindingStatus> answers = new ConcurrentHashMap<>();
    final List<String> asked = Collections.synchronizedList(new ArrayList<>());
    final List<String> released = Collections.synchronizedList(new ArrayList<>());

    @Override
    public BindingStatus bindingStatus(BindingRequest r) {
      asked.add(r.key());
      return answers.getOrDefault(r.device(), BindingStatus.pending("attaching " + r.device()));
    }

    @Override
    public void released(BindingRequest r) {
      released.add(r.claim().name() + " " + r.key());
    }

    @Override
    public Duration bindingPollInterval() {
      return Duration.ofMillis(20);
    }
  }

  private static DeviceRequestAllocationResult result(String device, String driver) {
    return new DeviceRequestAllocationResult(
        "gpu",
        driver,
        NODE,
        device,
        Optional.empty(),
        List.of(),
        List.of("Attached"),
        List.of("AttachFailed"),
        Optional.empty(),
        Map.of(),
        List.of(),
        null);
  }

  private ResourceClaim allocated(
      String name, NodeSelector where, DeviceRequestAllocationResult... r) {
    ResourceClaim claim =
        ResourceClaim.of(ObjectMeta.named("ns", name), null)
            .withStatus(
                new ResourceClaimStatus(
                    Optional.of(
                        AllocationResult.of(
                            DeviceAllocationResult.of(List.of(r), List.of()), where)),
                    null,
                    null,
                    null));
    return api.put(ResourceClaim.TYPE, claim);
  }

  private List<AllocatedDeviceStatus> status(String claim) {
    return api.object(ResourceClaim.TYPE, "ns", claim).orElseThrow().status().devices();
  }

  private Optional<Condition> condition(String claim, String device, String type) {
    return status(claim).stream()
        .filter(d -> d.device().equals(device))
        .flatMap(d -> d.conditions().stream())
        .filter(c -> c.type().equals(type))
        .findFirst();
  }

  @Test
  void pendingThenReadyIsWrittenForOurDevicesOnThisNodeOnly() throws Exception {
    Scripted provider = new Scripted();
    allocated(
        "mine",
        NodeSelector.forNodeName(NODE),
        result("gpu-0", DRIVER),
        result("gpu-1", DRIVER),
        result("nic-0", "nic.example.com"));
    allocated("elsewhere", NodeSelector.forNodeName("node-2"), result("gpu-0", DRIVER));
    try (BindingController c = BindingController.start(DRIVER, NODE, client, provider)) {
      assertThat(c.awaitSynced(WAIT)).isTrue();
      Await.until(
          "Attached=False on both", WAIT, () -> condition("mine", "gpu-1", "Attached").isPresent());
      Condition pending = condition("mine", "gpu-0", "Attached").orElseThrow();
      assertThat(pending.status()).isEqualTo("False");
      assertThat(pending.reason()).isEqualTo("Pending");
      assertThat(pending.message()).isEqualTo("attaching gpu-0");
      assertThat(status("mine")).extracting(AllocatedDeviceStatus::driver).containsOnly(DRIVER);

      provider.answers.put("gpu-0", BindingStatus.ready("gpu-0 attached"));
      Await.until(
          "gpu-0 Attached=True",
          WAIT,
          () ->
              condition("mine", "gpu-0", "Attached")
                  .map(x -> x.status().equals("True"))
                  .orElse(false));
      assertThat(condition("mine", "gpu-1", "Attached").orElseThrow().status()).isEqualTo("False");
      provider.answers.put("gpu-1", BindingStatus.ready("gpu-1 attached"));
      Await.until(
          "gpu-1 Attached=True",
          WAIT,
          () ->
              condition("mine", "gpu-1", "Attached")
                  .map(x -> x.status().equals("True"))
                  .orElse(false));
      // Settled: no more questions, and gpu-0's condition was kept while gpu-1 was written.
      assertThat(condition("mine", "gpu-0", "Attached").orElseThrow().status()).isEqualTo("True");
      int asked = provider.asked.size();
      Thread.sleep(200); // the point: ten poll intervals pass without a question
      assertThat(provider.asked).hasSize(asked);
      assertThat(status("elsewhere")).isEmpty();
      assertThat(provider.asked).allMatch(k -> k.startsWith(NODE + "/gpu-"));
      // The managed fields name the binding manager.
      assertThat(api.raw(ResourceClaim.TYPE, "ns", "mine").orElseThrow().toString())
          .contains(BindingController.fieldManager(DRIVER));
    }
  }

  @Test
  void aFailureSetsTheFailureConditionAndADeallocationReleases() throws Exception {
    Scripted provider = new Scripted();
    provider.answers.put("gpu-0", BindingStatus.failed("FabricDown", "no path to gpu-0"));
    ResourceClaim claim = allocated("c", NodeSelector.forNodeName(NODE), result("gpu-0", DRIVER));
    try (BindingController c = BindingController.start(DRIVER, NODE, client, provider)) {
      Await.until(
          "AttachFailed=True", WAIT, () -> condition("c", "gpu-0", "AttachFailed").isPresent());
      Condition failed = condition("c", "gpu-0", "AttachFailed").orElseThrow();
      assertThat(failed.status()).isEqualTo("True");
      assertThat(failed.reason()).isEqualTo("FabricDown");
      assertThat(condition("c", "gpu-0", "Attached").orElseThrow().status()).isEqualTo("False");

      // The scheduler deallocates: the provider hears of it once.
      ResourceClaim current = client.get(ResourceClaim.TYPE, "ns", "c");
      client.updateStatus(
          ResourceClaim.TYPE,
          current.withStatus(new ResourceClaimStatus(Optional.empty(), null, null, null)));
      Await.until("the release", WAIT, () -> !provider.released.isEmpty());
      assertThat(provider.released).containsExactly("c " + NODE + "/gpu-0");
    }
  }

  @Test
  void thePrepareTimeStatusAndTheBindingConditionsKeepEachOther() throws Exception {
    Scripted provider = new Scripted();
    provider.answers.put("gpu-0", BindingStatus.ready("attached"));
    allocated("c", NodeSelector.forNodeName(NODE), result("gpu-0", DRIVER));
    try (BindingController c = BindingController.start(DRIVER, NODE, client, provider)) {
      Await.until("Attached=True", WAIT, () -> condition("c", "gpu-0", "Attached").isPresent());
    }
    // What the claim pipeline applies after prepare, under the driver's own manager.
    AllocatedDeviceStatus ready =
        new AllocatedDeviceStatus(
            DRIVER,
            NODE,
            "gpu-0",
            null,
            List.of(
                Condition.from(
                    DeviceStatus.ready("Prepared", "ok").conditions().get(0),
                    java.time.Instant.now())),
            null,
            null,
            null);
    client.apply(
        ResourceClaim.TYPE,
        "ns",
        "c",
        "status",
        Map.of(
            "apiVersion",
            "resource.k8s.io/v1",
            "kind",
            "ResourceClaim",
            "metadata",
            Map.of("name", "c", "namespace", "ns"),
            "status",
            Map.of("devices", List.of(KubeJson.mapper().convertValue(ready, Map.class)))),
        new ApplyOptions(DRIVER, true));
    assertThat(condition("c", "gpu-0", "Ready")).isPresent();
    assertThat(condition("c", "gpu-0", "Attached").orElseThrow().status()).isEqualTo("True");
  }

  @Test
  void theTestKitSchedulerWaitsInPreBindForTheFakeFabric() throws Exception {
    client.create(
        DeviceClass.TYPE,
        DeviceClass.of(
            ObjectMeta.named("", "gpu"),
            DeviceClass.Spec.of(List.of(DeviceSelector.cel("device.driver == '" + DRIVER + "'")))));
    Path registry = Files.createDirectories(tmp.resolve("registry"));
    FakeDeviceProvider provider = new FakeDeviceProvider();
    try (KubeletSimulator kubelet = KubeletSimulator.start(registry);
        DraDriver driver =
            DraDriver.builder()
                .driverName(DRIVER)
                .nodeName(NODE)
                .provider(provider)
                .kubeClient(client)
                .config(
                    Map.of(
                        FakeDeviceProvider.CONFIG_DEVICES, "2",
                        FakeDeviceProvider.CONFIG_ATTACH_DEVICES, "all",
                        FakeDeviceProvider.CONFIG_ATTACH_FAILURES, "gpu-1",
                        FakeDeviceProvider.CONFIG_ATTACH_DELAY, "300ms"))
                .registrarDirectory(registry)
                .pluginDirectory(tmp.resolve("plugin"))
                .cdiDirectory(Files.createDirectories(tmp.resolve("cdi")))
                .warmUp(false)
                .build()) {
      api.putNode(NODE);
      driver.start();
      assertThat(driver.awaitPublished(WAIT)).isTrue();
      ClusterAllocator scheduler = new ClusterAllocator(client);

      // gpu-0 attaches: the pod waits in PreBind, then binds.
      pod("ok", "device.attributes['" + DRIVER + "'].index == 0");
      PodDecision first = scheduler.schedulePod("ns", "ok", NODE);
      assertThat(first.scheduled()).isFalse();
      assertThat(first.reason())
          .isEqualTo(ClusterAllocator.WAITING_FOR_BINDING + "Attached of node-1/gpu-0");
      assertThat(first.pod().spec().nodeName()).isEmpty();
      PodDecision bound = awaitDecision(scheduler, "ok", PodDecision::scheduled);
      assertThat(bound.pod().spec().nodeName()).isEqualTo(NODE);

      // gpu-1 fails: the claim is deallocated and the fake fabric hears of it.
      pod("bad", "device.attributes['" + DRIVER + "'].index == 1");
      PodDecision failed =
          awaitDecision(scheduler, "bad", d -> d.reason().contains("binding failure condition"));
      assertThat(failed.scheduled()).isFalse();
      assertThat(failed.reason())
          .contains("binding failure condition AttachFailed of device node-1/gpu-1 is True")
          .contains("the claim was deallocated");
      assertThat(client.get(ResourceClaim.TYPE, "ns", "bad").status().allocation()).isEmpty();
      Await.until(
          "the fake fabric released gpu-1",
          WAIT,
          () -> provider.attachments().stream().noneMatch(a -> a.endsWith("/gpu-1")));
    }
  }

  /** A claim with the selector and a pod using it, both named {@code name}. */
  private void pod(String name, String selector) throws Exception {
    client.create(
        ResourceClaim.TYPE,
        ResourceClaim.of(
            ObjectMeta.named("ns", name),
            ResourceClaimSpec.of(
                new io.dra4j.kube.DeviceClaim(
                    List.of(
                        DeviceRequest.exactly(
                            "gpu",
                            ExactDeviceRequest.of("gpu", 1)
                                .withSelectors(List.of(DeviceSelector.cel(selector))))),
                    null,
                    null,
                    null))));
    Pod.Container c =
        new Pod.Container(
            "main",
            Pod.Resources.of(Map.of(), Map.of(), List.of(Pod.ContainerClaim.of("gpu"))),
            Map.of("image", "registry.example.com/app:1"));
    client.create(
        Pod.TYPE,
        Pod.of(
            ObjectMeta.named("ns", name),
            Pod.Spec.of(List.of(c), List.of(Pod.PodResourceClaim.claim("gpu", name)))));
  }

  private static PodDecision awaitDecision(
      ClusterAllocator scheduler, String pod, java.util.function.Predicate<PodDecision> done) {
    AtomicReference<PodDecision> last = new AtomicReference<>();
    return Await.until(
        "the decision on " + pod,
        WAIT,
        () -> {
          last.set(scheduler.schedulePod("ns", pod, NODE));
          return Optional.of(last.get()).filter(done);
        },
        () -> "last decision: " + last.get().reason());
  }
}
