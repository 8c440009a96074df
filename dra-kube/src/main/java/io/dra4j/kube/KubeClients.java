package io.dra4j.kube;

import java.nio.file.Path;

/** Entry points for a {@link KubeClient} with safe defaults. */
public final class KubeClients {
  private KubeClients() {}

  /** A client for the cluster this pod runs in (service-account token, rotated; cluster CA). */
  public static HttpKubeClient inCluster() {
    return HttpKubeClient.builder(KubeConfig.inCluster()).build();
  }

  /** A client for the current context of a kubeconfig file. */
  public static HttpKubeClient fromKubeconfig(Path kubeconfig) {
    return HttpKubeClient.builder(KubeConfig.fromKubeconfig(kubeconfig)).build();
  }
}
