package io.dra4j.testkit.claims;

import io.dra4j.api.device.Device;
import io.dra4j.api.provider.Pool;
import io.dra4j.api.status.DeviceStatus;
import io.dra4j.kube.HttpKubeClient;
import io.dra4j.kube.KubeConfig;
import io.dra4j.runtime.internal.claims.ClaimPreparer;
import io.dra4j.runtime.internal.kubelet.KubeletPluginServer;
import io.dra4j.runtime.internal.slices.SlicePublisher;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.stream.IntStream;

/**
 * A driver process for the crash matrix. Run with {@code -Ddra4j.claims.crashPoint=<point>}; it
 * blocks at that point until killed.
 *
 * <p>Arguments: mode, root directory (laid out like {@link ClaimsHarness}), kubeconfig file.
 *
 * <ul>
 *   <li>{@code claims}: recovery, then the pipeline with a {@link TestProvider} (statuses on,
 *       device metadata on) behind a real KubeletPluginServer; prints {@code READY <socket>}.
 *   <li>{@code publish}: a node-local publisher of {@link #PUBLISHED_DEVICES} devices on node
 *       {@link #NODE} (two slices).
 * </ul>
 */
public final class CrashChild {
  static final String NODE = "node-a";
  static final int PUBLISHED_DEVICES = 200;

  private CrashChild() {}

  public static void main(String[] args) throws Exception {
    Path root = Path.of(args[1]);
    HttpKubeClient client =
        HttpKubeClient.builder(KubeConfig.fromKubeconfig(Path.of(args[2]))).build();
    if (args[0].equals("publish")) {
      SlicePublisher publisher =
          SlicePublisher.builder(client, ClaimsHarness.DRIVER).nodeName(NODE).build().start();
      publisher.publish(List.of(pool()));
      System.out.println("PUBLISHING");
      System.out.flush();
      System.in.read();
      publisher.close();
      return;
    }
    TestProvider provider = new TestProvider();
    provider.status = d -> Optional.of(DeviceStatus.ready("Ok", "ready"));
    ClaimPreparer preparer =
        ClaimPreparer.builder()
            .driverName(ClaimsHarness.DRIVER)
            .provider(provider)
            .kubeClient(client)
            .pluginDataDirectory(root.resolve("plugins").resolve(ClaimsHarness.DRIVER))
            .cdiDirectory(root.resolve("cdi"))
            .devRoot(root.resolve("dev"))
            .bootIdFile(root.resolve("boot_id"))
            .deviceMetadata(true)
            .build();
    preparer.recover();
    KubeletPluginServer server =
        KubeletPluginServer.builder()
            .driverName(ClaimsHarness.DRIVER)
            .registrarDirectory(root.resolve("registry"))
            .pluginDataDirectory(root.resolve("plugins").resolve(ClaimsHarness.DRIVER))
            .nodeService(preparer)
            .start();
    System.out.println("READY " + server.registrationSocket());
    System.out.flush();
    // Runs until killed, or until stdin closes.
    System.in.read();
    server.close();
  }

  /** The pool the publish mode publishes, and the test expects to find afterwards. */
  static Pool pool() {
    List<Device> devices =
        IntStream.range(0, PUBLISHED_DEVICES)
            .mapToObj(i -> Device.builder("gpu-" + i).attribute("index", i).build())
            .toList();
    return Pool.of(NODE, devices);
  }
}
