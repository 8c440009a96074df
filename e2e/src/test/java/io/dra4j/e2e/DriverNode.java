package io.dra4j.e2e;

import io.dra4j.kube.ListOptions;
import io.dra4j.kube.ResourceSlice;
import io.dra4j.runtime.testsupport.Await;
import io.dra4j.testkit.kubelet.KubeletSimulator;
import io.dra4j.testkit.kubelet.PluginInstance;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.function.UnaryOperator;

/**
 * One API-only node of the real cluster with the fake driver running for it as a real process:
 * authenticated with the pod-bound token of the deployment's ServiceAccount (after the deployment's
 * RBAC and ValidatingAdmissionPolicy were applied), registered with a kubelet simulator on its own
 * registry folder. Closing it stops the driver and removes the node and its slices, so the next
 * test's scheduler sees only its own nodes.
 */
final class DriverNode implements AutoCloseable {
  static final Duration PUBLISH_TIMEOUT = Duration.ofSeconds(90);

  final Cluster cluster;
  final String name;
  final Path work;
  final Path kubeconfig;
  final KubeletSimulator kubelet;
  final DriverProcess driver;

  private DriverNode(
      Cluster cluster,
      String name,
      Path work,
      Path kubeconfig,
      KubeletSimulator kubelet,
      DriverProcess driver) {
    this.cluster = cluster;
    this.name = name;
    this.work = work;
    this.kubeconfig = kubeconfig;
    this.kubelet = kubelet;
    this.driver = driver;
  }

  /**
   * Creates the node (with {@code capacity} in its status, e.g. {@code example.com/gpu=4} as a
   * device plugin would advertise) and starts its driver; {@code flags} adds driver flags.
   */
  static DriverNode start(
      Cluster cluster,
      String name,
      UnaryOperator<DriverProcess.Builder> flags,
      String... capacity) {
    Deployment.ensureApplied(cluster);
    cluster.node(name, capacity);
    Path kubeconfig = cluster.token(Deployment.NAMESPACE, Deployment.SERVICE_ACCOUNT, name);
    Path work = workDir(name);
    KubeletSimulator kubelet = KubeletSimulator.start(work.resolve("registry"));
    DriverProcess driver = flags.apply(DriverProcess.builder(work, name, kubeconfig)).start();
    return new DriverNode(cluster, name, work, kubeconfig, kubelet, driver);
  }

  static Path workDir(String name) {
    try {
      Path base = Path.of(System.getProperty("dra4j.work", "target/work"));
      Path dir = base.resolve(name + "-" + System.nanoTime());
      return Files.createDirectories(dir);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** The driver as the kubelet simulator sees it once registered. */
  PluginInstance plugin() throws InterruptedException {
    return kubelet.awaitPlugin(driver.driverName(), Duration.ofSeconds(90));
  }

  /** This node's slices of the driver, as the API server holds them. */
  List<ResourceSlice> slices() throws Exception {
    return cluster
        .admin()
        .list(
            ResourceSlice.TYPE,
            "",
            ListOptions.fields("spec.nodeName=" + name + ",spec.driver=" + driver.driverName()))
        .items();
  }

  int publishedDevices() throws Exception {
    return slices().stream().mapToInt(s -> s.spec().devices().size()).sum();
  }

  /** Waits until the API server holds {@code devices} devices of this node. */
  void awaitDevices(int devices) {
    Await.until(
        devices + " devices of node " + name + " in the API server",
        PUBLISH_TIMEOUT,
        () -> publishedDevices() == devices,
        this::context);
  }

  <T> T await(String what, Await.Probe<T> probe) {
    return Await.until(what, Duration.ofSeconds(90), probe, this::context);
  }

  void await(String what, Await.Check check) {
    Await.until(what, Duration.ofSeconds(90), check, this::context);
  }

  /** What a failure message shows: the driver's log. */
  String context() {
    return "driver log of " + name + ":\n" + tail(driver.log());
  }

  static String tail(String log) {
    String[] lines = log.split("\n");
    int from = Math.max(0, lines.length - 60);
    return String.join("\n", List.of(lines).subList(from, lines.length));
  }

  @Override
  public void close() {
    driver.close();
    kubelet.close();
    cluster.removeNode(name);
  }
}
