package io.dra4j.testkit.claims;

import io.dra4j.runtime.claims.ClaimPreparer;
import io.dra4j.runtime.kube.HttpKubeClient;
import io.dra4j.runtime.kube.KubeConfig;
import io.dra4j.runtime.kubelet.KubeletPluginServer;
import java.nio.file.Path;
import java.util.Optional;

/**
 * A driver process for the crash tests: the pipeline with a {@link TestProvider} (statuses on)
 * behind a real KubeletPluginServer, reading claims from the test's fake API server. Run with
 * {@code -Ddra4j.claims.crashPoint=<point>}; it blocks at that point until killed.
 *
 * <p>Arguments: root directory (laid out like {@link ClaimsHarness}), kubeconfig file.
 */
public final class CrashChild {
  private CrashChild() {}

  public static void main(String[] args) throws Exception {
    Path root = Path.of(args[0]);
    HttpKubeClient client =
        HttpKubeClient.builder(KubeConfig.fromKubeconfig(Path.of(args[1]))).build();
    TestProvider provider = new TestProvider();
    provider.status = d -> Optional.of(io.dra4j.api.status.DeviceStatus.ready("Ok", "ready"));
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
    preparer.close();
  }
}
