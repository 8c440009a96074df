package io.dra4j.testkit.kubelet;

import io.dra4j.api.cdi.ContainerEdits;
import io.dra4j.api.claim.ClaimAllocation;
import io.dra4j.api.claim.PrepareResult;
import io.dra4j.api.claim.PreparedClaim;
import io.dra4j.api.claim.PreparedDevice;
import io.dra4j.api.provider.DeviceProvider;
import io.dra4j.api.provider.Inventory;
import io.dra4j.api.provider.ProviderContext;
import io.dra4j.kube.KubeJson;
import io.dra4j.kube.ResourceClaim;
import io.dra4j.runtime.internal.claims.ClaimPreparer;
import io.dra4j.runtime.internal.claims.ClaimSerializer;
import io.dra4j.runtime.internal.kubelet.KubeletPluginServer;
import io.grpc.ForwardingServerCallListener;
import io.grpc.Metadata;
import io.grpc.ServerCall;
import io.grpc.ServerCallHandler;
import io.grpc.ServerInterceptor;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The second driver process of {@link CrossProcessSerializationTest}: a rolling-update driver (its
 * own claim pipeline and server) that shares the plugin data directory (hence {@code
 * serialize.lock}) with the test's own. Its provider appends "child enter" / "child exit" to a log
 * file; an interceptor appends "child requested" when a prepare arrives, before the pipeline takes
 * the lock. Runs until stdin closes.
 *
 * <p>Arguments: registry dir, plugin data dir, pod UID, log file, CDI dir.
 */
public final class SerializeChild {

  static final String DRIVER = "serial.example.com";

  private SerializeChild() {}

  /** What the provider does inside its prepare. */
  @FunctionalInterface
  interface Inside {
    void run() throws Exception;
  }

  /** A provider with one device per allocated device, which runs {@code inside} in prepare. */
  static DeviceProvider provider(Inside inside) {
    return new DeviceProvider() {
      @Override
      public Inventory discover(ProviderContext context) {
        return Inventory.empty();
      }

      @Override
      public PrepareResult prepare(ClaimAllocation allocation) {
        try {
          inside.run();
        } catch (Exception e) {
          throw new IllegalStateException(e);
        }
        return PrepareResult.of(
            allocation.devices().stream()
                .map(
                    d ->
                        PreparedDevice.of(d, ContainerEdits.builder().env("D", d.device()).build()))
                .toList());
      }

      @Override
      public void unprepare(PreparedClaim claim) {}
    };
  }

  /**
   * A rolling-update driver of {@link #DRIVER}: its pipeline serves every claim as allocated to one
   * device named after the claim, without an API server.
   */
  static KubeletPluginServer.Builder driver(
      DeviceProvider provider, Path registry, Path pluginDir, Path cdiDir, String podUid)
      throws IOException {
    ClaimPreparer preparer =
        ClaimPreparer.builder()
            .driverName(DRIVER)
            .provider(provider)
            .claimSource(SerializeChild::allocated)
            .pluginDataDirectory(pluginDir)
            .cdiDirectory(cdiDir)
            .devRoot(cdiDir)
            .serializer(ClaimSerializer.forDriver(provider, pluginDir, Optional.of(podUid)))
            .build();
    preparer.recover();
    return KubeletPluginServer.builder()
        .driverName(DRIVER)
        .registrarDirectory(registry)
        .pluginDataDirectory(pluginDir)
        .rollingUpdate(podUid)
        .nodeService(preparer);
  }

  /** Claim {@code name} has UID {@code uid-<name>} and device {@code pool/<name>}. */
  private static ResourceClaim allocated(String namespace, String name) {
    Map<String, Object> result =
        Map.of("request", "gpu", "driver", DRIVER, "pool", "pool", "device", name);
    return KubeJson.mapper()
        .convertValue(
            Map.of(
                "metadata", Map.of("namespace", namespace, "name", name, "uid", "uid-" + name),
                "status",
                    Map.of("allocation", Map.of("devices", Map.of("results", List.of(result))))),
            ResourceClaim.class);
  }

  public static void main(String[] args) throws Exception {
    Path log = Path.of(args[3]);
    DeviceProvider provider =
        provider(
            () -> {
              append(log, "child enter");
              append(log, "child exit");
            });
    ServerInterceptor requested =
        new ServerInterceptor() {
          @Override
          public <Q, R> ServerCall.Listener<Q> interceptCall(
              ServerCall<Q, R> call, Metadata headers, ServerCallHandler<Q, R> next) {
            if (!call.getMethodDescriptor().getBareMethodName().equals("NodePrepareResources")) {
              return next.startCall(call, headers);
            }
            return new ForwardingServerCallListener.SimpleForwardingServerCallListener<>(
                next.startCall(call, headers)) {
              @Override
              public void onHalfClose() {
                append(log, "child requested");
                super.onHalfClose();
              }
            };
          }
        };
    try (KubeletPluginServer server =
        driver(provider, Path.of(args[0]), Path.of(args[1]), Path.of(args[4]), args[2])
            .interceptor(requested)
            .start()) {
      System.out.println("READY " + server.registrationSocket());
      System.out.flush();
      while (System.in.read() >= 0) {
        // wait for the parent to close stdin (or die)
      }
    }
  }

  static void append(Path log, String line) {
    try {
      Files.writeString(
          log,
          line + "\n",
          StandardCharsets.UTF_8,
          StandardOpenOption.CREATE,
          StandardOpenOption.WRITE,
          StandardOpenOption.APPEND);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
