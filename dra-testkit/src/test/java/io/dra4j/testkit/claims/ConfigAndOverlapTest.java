package io.dra4j.testkit.claims;

import static io.dra4j.testkit.claims.ClaimsHarness.DRIVER;
import static io.dra4j.testkit.claims.ClaimsHarness.OTHER_DRIVER;
import static io.dra4j.testkit.claims.ClaimsHarness.result;
import static org.assertj.core.api.Assertions.assertThat;

import io.dra4j.api.claim.AllocatedDevice;
import io.dra4j.api.claim.ClaimRef;
import io.dra4j.api.status.DeviceStatus;
import io.dra4j.kube.ApplyOptions;
import io.dra4j.kube.DeviceAllocationConfiguration;
import io.dra4j.kube.ForwardingKubeClient;
import io.dra4j.kube.KubeException;
import io.dra4j.kube.OpaqueDeviceConfiguration;
import io.dra4j.kube.ResourceClaim;
import io.dra4j.kube.ResourceType;
import io.dra4j.runtime.testsupport.Await;
import io.dra4j.testkit.kubelet.ClaimResult;
import io.dra4j.testkit.kubelet.PluginInstance;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Opaque config decoding and the overlap guard, through the kubelet contract. */
class ConfigAndOverlapTest {

  @TempDir Path tmp;
  ClaimsHarness h;
  final TestProvider provider = new TestProvider();

  @BeforeEach
  void setUp() throws Exception {
    h = new ClaimsHarness(tmp);
  }

  @AfterEach
  void tearDown() {
    h.close();
  }

  private static DeviceAllocationConfiguration config(
      String source, List<String> requests, String driver, Object parameters) {
    return DeviceAllocationConfiguration.opaque(
        source, requests, OpaqueDeviceConfiguration.of(driver, parameters));
  }

  private static Map<String, Object> gpu(String sharing) {
    return Map.of("apiVersion", TestProvider.API_VERSION, "kind", "GpuConfig", "sharing", sharing);
  }

  private String prepareError(List<DeviceAllocationConfiguration> configs) throws Exception {
    ClaimRef claim =
        h.seed("ns", "cfg", List.of(result("gpu", "node-a", "gpu-0")), configs, Map.of());
    ClaimResult r = h.plugin.prepare(List.of(claim)).get(claim.uid());
    assertThat(r.error()).as("expected a config error").isPresent();
    assertThat(provider.prepareCalls).isEmpty();
    assertThat(h.checkpointFiles()).isEmpty();
    return r.error().get();
  }

  @Test
  void malformedConfigsFailTheClaimNamingClaimRequestAndField() throws Exception {
    h.start(provider);
    String prefix = "claim ns/cfg (";
    assertThat(
            prepareError(
                List.of(
                    config(
                        "FromClaim",
                        List.of(),
                        DRIVER,
                        Map.of(
                            "apiVersion", TestProvider.API_VERSION,
                            "kind", "GpuConfig",
                            "sharingg", "none")))))
        .startsWith(prefix)
        .endsWith(
            "request gpu: config gpu.example.com/v1alpha1 GpuConfig: unknown field \"sharingg\""
                + " (known fields: replicas, sharing)");
  }

  @Test
  void wrongKindWrongApiVersionNotAnObjectAndInvalidAreRejected() throws Exception {
    h.start(provider);
    List<Object[]> cases =
        List.of(
            new Object[] {
              Map.of("apiVersion", TestProvider.API_VERSION, "kind", "CpuConfig"),
              "config gpu.example.com/v1alpha1 CpuConfig: not a config this driver accepts"
            },
            new Object[] {
              Map.of("apiVersion", "gpu.example.com/v2", "kind", "GpuConfig"),
              "config gpu.example.com/v2 GpuConfig: not a config this driver accepts"
            },
            new Object[] {List.of(1, 2), "parameters must be a JSON object, found array"},
            new Object[] {Map.of("sharing", "none"), "must carry string fields \"apiVersion\""},
            new Object[] {
              gpu("exclusive"),
              "config gpu.example.com/v1alpha1 GpuConfig: sharing: \"exclusive\" is not"
                  + " supported"
            },
            new Object[] {
              Map.of(
                  "apiVersion", TestProvider.API_VERSION, "kind", "GpuConfig", "replicas", "many"),
              "field \"replicas\""
            });
    int i = 0;
    for (Object[] c : cases) {
      String name = "cfg" + i++;
      ClaimRef claim =
          h.seed(
              "ns",
              name,
              List.of(result("gpu", "node-a", "gpu-0")),
              List.of(config("FromClaim", List.of("gpu"), DRIVER, c[0])),
              Map.of());
      ClaimResult r = h.plugin.prepare(List.of(claim)).get(claim.uid());
      assertThat(r.error()).as("case %s", c[1]).isPresent();
      assertThat(r.error().get())
          .as("case %s", c[1])
          .startsWith("claim ns/" + name + " (" + claim.uid() + "), request gpu: ")
          .contains((String) c[1]);
    }
    assertThat(provider.prepareCalls).isEmpty();
  }

  @Test
  void classConfigsThenClaimConfigsLaterWinsFilteredByDriverAndRequest() throws Exception {
    h.start(provider);
    ClaimRef claim =
        h.seed(
            "ns",
            "prec",
            List.of(
                result("gpu", "node-a", "gpu-0"),
                result("big/large", "node-a", "gpu-1"),
                result("small/tiny", "node-a", "gpu-2"),
                result("plain", "node-a", "gpu-3")),
            List.of(
                // Claim config listed first, but class configs come first whatever the order.
                config("FromClaim", List.of("gpu"), DRIVER, gpu("timeslice")),
                config("FromClass", List.of(), DRIVER, gpu("none")),
                config("FromClaim", List.of("big"), DRIVER, gpu("timeslice")),
                config("FromClaim", List.of("small/other"), DRIVER, gpu("timeslice")),
                // Another driver's config: ignored even though it would not decode.
                config("FromClaim", List.of(), OTHER_DRIVER, Map.of("x", 1)),
                config(
                    "FromClaim",
                    List.of("plain"),
                    DRIVER,
                    Map.of(
                        "apiVersion", TestProvider.API_VERSION, "kind", "NicConfig", "mtu", 9000))),
            Map.of());

    ClaimResult r = h.plugin.prepare(List.of(claim)).get(claim.uid());

    assertThat(r.error()).isEmpty();
    List<AllocatedDevice> devices = provider.prepareCalls.get(0).devices();
    assertThat(devices.get(0).config(TestProvider.GpuConfig.class))
        .contains(new TestProvider.GpuConfig("timeslice", null));
    assertThat(devices.get(1).config(TestProvider.GpuConfig.class))
        .contains(new TestProvider.GpuConfig("timeslice", null));
    // "small/other" names another subrequest: only the class config applies.
    assertThat(devices.get(2).config(TestProvider.GpuConfig.class))
        .contains(new TestProvider.GpuConfig("none", null));
    // A record that declares apiVersion and kind gets them.
    assertThat(devices.get(3).config(TestProvider.NicConfig.class))
        .contains(new TestProvider.NicConfig(TestProvider.API_VERSION, "NicConfig", 9000));
  }

  @Test
  void subrequestEntriesApplyOnlyToThatSubrequest() throws Exception {
    h.start(provider);
    ClaimRef claim =
        h.seed(
            "ns",
            "sub",
            List.of(result("gpu/large", "node-a", "gpu-0")),
            List.of(config("FromClaim", List.of("gpu/large"), DRIVER, gpu("timeslice"))),
            Map.of());
    assertThat(h.plugin.prepare(List.of(claim)).get(claim.uid()).isOk()).isTrue();
    assertThat(provider.prepareCalls.get(0).devices().get(0).config(TestProvider.GpuConfig.class))
        .contains(new TestProvider.GpuConfig("timeslice", null));
  }

  @Test
  void noConfigMeansEmptyAndAConfigForAProviderWithoutTypedConfigIsAClearError() throws Exception {
    io.dra4j.api.provider.DeviceProvider untyped =
        new io.dra4j.api.provider.DeviceProvider() {
          @Override
          public io.dra4j.api.provider.Inventory discover(io.dra4j.api.provider.ProviderContext c) {
            throw new UnsupportedOperationException();
          }

          @Override
          public io.dra4j.api.claim.PrepareResult prepare(io.dra4j.api.claim.ClaimAllocation a)
              throws io.dra4j.api.claim.DeviceException {
            return provider.prepare(a);
          }

          @Override
          public void unprepare(io.dra4j.api.claim.PreparedClaim c)
              throws io.dra4j.api.claim.DeviceException {
            provider.unprepare(c);
          }
        };
    h.start(provider, b -> b.provider(untyped));
    ClaimRef plain = h.seed("plain", List.of(result("gpu", "node-a", "gpu-0")));
    assertThat(h.plugin.prepare(List.of(plain)).get(plain.uid()).isOk()).isTrue();
    assertThat(provider.prepareCalls.get(0).devices().get(0).config()).isEmpty();

    ClaimRef configured =
        h.seed(
            "ns",
            "configured",
            List.of(result("gpu", "node-a", "gpu-1")),
            List.of(config("FromClass", List.of(), DRIVER, gpu("none"))),
            Map.of());
    assertThat(h.plugin.prepare(List.of(configured)).get(configured.uid()).error().get())
        .contains("request gpu")
        .contains("does not implement TypedConfig");
  }

  @Test
  void overlapIsRefusedUnlessAdminAccessOrShared() throws Exception {
    h.start(provider);
    ClaimRef first = h.seed("first", List.of(result("gpu", "node-a", "gpu-3")));
    ClaimRef second = h.seed("second", List.of(result("gpu", "node-a", "gpu-3")));
    ClaimRef admin =
        h.seed("admin", List.of(result("gpu", "node-a", "gpu-3", true, Optional.empty())));
    ClaimRef share1 =
        h.seed(
            "share1",
            List.of(
                result(
                    "gpu",
                    "node-a",
                    "gpu-9",
                    false,
                    Optional.of("11111111-1111-4111-8111-111111111111"))));
    ClaimRef share2 =
        h.seed(
            "share2",
            List.of(
                result(
                    "gpu",
                    "node-a",
                    "gpu-9",
                    false,
                    Optional.of("22222222-2222-4222-8222-222222222222"))));

    Map<String, ClaimResult> r = h.plugin.prepare(List.of(first, second, admin, share1, share2));

    assertThat(r.get(first.uid()).isOk()).isTrue();
    assertThat(r.get(second.uid()).error())
        .contains(
            "claim " + second + ": device node-a/gpu-3 is already prepared for claim " + first);
    assertThat(r.get(admin.uid()).isOk()).isTrue();
    assertThat(r.get(share1.uid()).isOk()).isTrue();
    assertThat(r.get(share2.uid()).isOk()).isTrue();
    assertThat(provider.prepareCalls).hasSize(4);

    // Once the first claim is unprepared, the second gets the device.
    assertThat(h.plugin.unprepare(List.of(first))).containsEntry(first.uid(), Optional.empty());
    assertThat(h.plugin.prepare(List.of(second)).get(second.uid()).isOk()).isTrue();
  }

  @Test
  void overlapGuardStaysExactWithParallelPrepares() throws Exception {
    provider.threadSafe = true;
    PluginInstance plugin = h.start(provider);
    int devices = 4;
    int claimsPerDevice = 4;
    List<ClaimRef> claims = new ArrayList<>();
    for (int d = 0; d < devices; d++) {
      for (int c = 0; c < claimsPerDevice; c++) {
        claims.add(h.seed("c-" + d + "-" + c, List.of(result("gpu", "node-a", "gpu-" + d))));
      }
    }
    ExecutorService pool = Executors.newFixedThreadPool(8);
    try {
      List<CompletableFuture<Map<String, ClaimResult>>> calls = new ArrayList<>();
      for (ClaimRef c : claims) {
        calls.add(CompletableFuture.supplyAsync(() -> plugin.prepare(List.of(c)), pool));
      }
      int ok = 0;
      for (int i = 0; i < calls.size(); i++) {
        ClaimResult r = calls.get(i).get(60, TimeUnit.SECONDS).get(claims.get(i).uid());
        if (r.isOk()) {
          ok++;
        } else {
          assertThat(r.error().get()).contains("is already prepared for claim");
        }
      }
      assertThat(ok).isEqualTo(devices);
      assertThat(provider.held).hasSize(devices).doesNotHaveDuplicates();
      assertThat(h.checkpointFiles()).hasSize(devices);
    } finally {
      pool.shutdownNow();
    }
  }

  @Test
  void providerCallsAreSerializedUnlessTheProviderIsThreadSafe() throws Exception {
    assertThat(maxConcurrentPrepares(false)).isEqualTo(1);
    h.stopDriver();
    assertThat(maxConcurrentPrepares(true)).isGreaterThan(1);
  }

  @Test
  void aPrepareWaitsForTheRunningOneUnlessTheProviderIsThreadSafe() throws Exception {
    assertThat(runConcurrentPrepares(false))
        .containsExactly("read a", "enter a", "read b", "exit a", "enter b", "exit b");
    h.stopDriver();
    // The control: the same scenario interleaves for a thread-safe provider.
    assertThat(runConcurrentPrepares(true))
        .containsExactly("read a", "enter a", "read b", "enter b", "exit b", "exit a");
  }

  /**
   * Prepares A (which blocks inside the provider) and, once B's claim was read from the API server
   * (before the serialization lock), releases A. The log shows whether B entered while A was
   * inside.
   */
  private List<String> runConcurrentPrepares(boolean threadSafe) throws Exception {
    List<String> log = new CopyOnWriteArrayList<>();
    CountDownLatch aInside = new CountDownLatch(1);
    CountDownLatch releaseA = new CountDownLatch(1);
    TestProvider p = new TestProvider();
    p.threadSafe = threadSafe;
    p.during =
        allocation -> {
          String name = allocation.claim().name();
          log.add("enter " + name);
          if (name.equals("a")) {
            aInside.countDown();
            releaseA.await(20, TimeUnit.SECONDS);
          }
          log.add("exit " + name);
        };
    PluginInstance plugin =
        h.start(
            p,
            b ->
                b.claimSource(
                    (namespace, name) -> {
                      ResourceClaim claim = h.client.get(ResourceClaim.TYPE, namespace, name);
                      log.add("read " + name);
                      return claim;
                    }));
    // A namespace per run: the second run seeds the same claim names again.
    String ns = "thread-safe-" + threadSafe;
    ClaimRef a = h.seed(ns, "a", List.of(result("gpu", "node-a", "gpu-0")), List.of(), Map.of());
    ClaimRef b = h.seed(ns, "b", List.of(result("gpu", "node-a", "gpu-1")), List.of(), Map.of());
    ExecutorService pool = Executors.newFixedThreadPool(2);
    try {
      CompletableFuture<Map<String, ClaimResult>> first =
          CompletableFuture.supplyAsync(() -> plugin.prepare(List.of(a)), pool);
      assertThat(aInside.await(20, TimeUnit.SECONDS)).isTrue();
      CompletableFuture<Map<String, ClaimResult>> second =
          CompletableFuture.supplyAsync(() -> plugin.prepare(List.of(b)), pool);
      Await.until("B reading its claim", Duration.ofSeconds(20), () -> log.contains("read b"));
      if (threadSafe) {
        // B runs to completion on its own; wait for it before releasing A.
        second.get(20, TimeUnit.SECONDS);
      } else {
        // The point: time for a broken lock to let B in before A leaves.
        Thread.sleep(200);
      }
      releaseA.countDown();
      assertThat(first.get(20, TimeUnit.SECONDS).get(a.uid()).isOk()).isTrue();
      assertThat(second.get(20, TimeUnit.SECONDS).get(b.uid()).isOk()).isTrue();
    } finally {
      pool.shutdownNow();
    }
    assertThat(plugin.unprepare(List.of(a, b))).allSatisfy((uid, e) -> assertThat(e).isEmpty());
    return log;
  }

  /**
   * The claim status goes to the API server after the driver's lock: B prepares while A's status
   * apply hangs, and a repeated prepare of A waits until the first is answered.
   */
  @Test
  void theStatusApplyHoldsUpOnlyItsOwnClaim() throws Exception {
    CountDownLatch aApplying = new CountDownLatch(1);
    CountDownLatch releaseA = new CountDownLatch(1);
    List<String> log = new CopyOnWriteArrayList<>();
    TestProvider p = new TestProvider();
    p.status = d -> Optional.of(DeviceStatus.ready("Prepared", "ready"));
    PluginInstance plugin =
        h.start(
            p,
            b ->
                b.kubeClient(
                    new ForwardingKubeClient(h.client) {
                      @Override
                      public <T> T apply(
                          ResourceType<T> type,
                          String namespace,
                          String name,
                          String subresource,
                          Map<String, Object> patch,
                          ApplyOptions options)
                          throws KubeException {
                        if (name.equals("a")) {
                          aApplying.countDown();
                          try {
                            releaseA.await(20, TimeUnit.SECONDS);
                          } catch (InterruptedException e) {
                            Thread.currentThread().interrupt();
                          }
                        }
                        T applied =
                            delegate().apply(type, namespace, name, subresource, patch, options);
                        log.add("applied " + name);
                        return applied;
                      }
                    }));
    assertThat(p.threadSafe).as("the driver's lock holds one call at a time").isFalse();
    ClaimRef a = h.seed("ns", "a", List.of(result("gpu", "node-a", "gpu-0")), List.of(), Map.of());
    ClaimRef b = h.seed("ns", "b", List.of(result("gpu", "node-a", "gpu-1")), List.of(), Map.of());
    ExecutorService pool = Executors.newFixedThreadPool(2);
    try {
      CompletableFuture<Map<String, ClaimResult>> first =
          CompletableFuture.supplyAsync(() -> plugin.prepare(List.of(a)), pool);
      assertThat(aApplying.await(20, TimeUnit.SECONDS)).isTrue();
      assertThat(plugin.prepare(List.of(b)).get(b.uid()).isOk()).isTrue();
      assertThat(log).containsExactly("applied b");
      // The kubelet repeats a prepare it gave up on: it waits for the first to be answered.
      CompletableFuture<Map<String, ClaimResult>> repeatA =
          CompletableFuture.supplyAsync(() -> plugin.prepare(List.of(a)), pool);
      Thread.sleep(200); // the point: a broken claim lock would let the repeat through now
      assertThat(repeatA).isNotDone();
      releaseA.countDown();
      assertThat(first.get(20, TimeUnit.SECONDS).get(a.uid()).isOk()).isTrue();
      assertThat(repeatA.get(20, TimeUnit.SECONDS).get(a.uid()).isOk()).isTrue();
      assertThat(log).containsExactly("applied b", "applied a", "applied a");
    } finally {
      releaseA.countDown();
      pool.shutdownNow();
    }
    assertThat(plugin.unprepare(List.of(a, b))).allSatisfy((uid, e) -> assertThat(e).isEmpty());
  }

  /** Eight claims on eight devices, prepared by eight kubelet calls at once. */
  private int maxConcurrentPrepares(boolean threadSafe) throws Exception {
    TestProvider p = new TestProvider();
    p.threadSafe = threadSafe;
    p.prepareMillis = 100;
    PluginInstance plugin = h.start(p);
    List<ClaimRef> claims = new ArrayList<>();
    for (int d = 0; d < 8; d++) {
      claims.add(h.seed("t" + threadSafe + "-" + d, List.of(result("gpu", "node-a", "gpu-" + d))));
    }
    ExecutorService pool = Executors.newFixedThreadPool(8);
    try {
      List<CompletableFuture<Map<String, ClaimResult>>> calls = new ArrayList<>();
      for (ClaimRef c : claims) {
        calls.add(CompletableFuture.supplyAsync(() -> plugin.prepare(List.of(c)), pool));
      }
      for (int i = 0; i < calls.size(); i++) {
        assertThat(calls.get(i).get(60, TimeUnit.SECONDS).get(claims.get(i).uid()).isOk()).isTrue();
      }
    } finally {
      pool.shutdownNow();
    }
    assertThat(plugin.unprepare(claims)).allSatisfy((uid, error) -> assertThat(error).isEmpty());
    return p.maxInFlight.get();
  }
}
