package io.dra4j.e2e;

import com.fasterxml.jackson.databind.JsonNode;
import io.dra4j.kube.KubeException;
import io.dra4j.kube.ListOptions;
import io.dra4j.kube.ResourceSlice;
import io.dra4j.runtime.files.AtomicFiles;
import io.dra4j.runtime.testsupport.Await;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.UnaryOperator;
import java.util.stream.Stream;

/**
 * One API-only node of the real cluster with the real kubelet's plugin manager and DRA manager
 * ({@link RealKubelet}) and the fake driver as a real process, authenticated with the pod-bound
 * token of the deployment's ServiceAccount and registering through the kubelet's registry folder.
 * The driver can be stopped, crashed and started again on the same folders (its checkpoint, CDI
 * specs and sockets), as a DaemonSet pod restarts on the host's folders.
 */
final class KubeletNode implements AutoCloseable {
  final Cluster cluster;
  final String name;

  /** Logs. */
  final Path work;

  /**
   * The host folders: registry, plugins, CDI, the kubelet's state. Short, because a socket path has
   * at most 107 bytes and the rolling-update names carry a pod UID.
   */
  final Path host;

  final Path kubeconfig;
  final RealKubelet kubelet;
  private DriverProcess driver;
  private int driverStarts;

  private KubeletNode(
      Cluster cluster, String name, Path work, Path host, Path kubeconfig, RealKubelet kubelet) {
    this.cluster = cluster;
    this.name = name;
    this.work = work;
    this.host = host;
    this.kubeconfig = kubeconfig;
    this.kubelet = kubelet;
  }

  /** Creates the node and starts its kubelet, then its driver with {@code flags}. */
  static KubeletNode start(
      Cluster cluster, String name, UnaryOperator<DriverProcess.Builder> flags) {
    return start(cluster, name, List.of(), flags);
  }

  /** As {@link #start(Cluster, String, UnaryOperator)}, the kubelet with {@code kubeletFlags}. */
  static KubeletNode start(
      Cluster cluster,
      String name,
      List<String> kubeletFlags,
      UnaryOperator<DriverProcess.Builder> flags) {
    Deployment.ensureApplied(cluster);
    cluster.node(name);
    Path kubeconfig = cluster.token(Deployment.NAMESPACE, Deployment.SERVICE_ACCOUNT, name);
    Path work = DriverNode.workDir(name);
    Path host;
    try {
      host = Files.createTempDirectory("rk-");
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    KubeletNode node =
        new KubeletNode(
            cluster,
            name,
            work,
            host,
            kubeconfig,
            RealKubelet.start(cluster, name, host, kubeletFlags));
    node.startDriver(flags);
    return node;
  }

  /**
   * Starts the driver (again) on the node's folders: the kubelet's registry folder, and the same
   * plugin and CDI folders every time.
   */
  DriverProcess startDriver(UnaryOperator<DriverProcess.Builder> flags) {
    driverStarts++;
    driver =
        flags
            .apply(
                DriverProcess.builder(work, name, kubeconfig)
                    .logName("driver-" + driverStarts)
                    .folders(kubelet.registryDir(), host.resolve("plugins"), host.resolve("cdi")))
            .start();
    return driver;
  }

  DriverProcess driver() {
    return driver;
  }

  /** Waits until the kubelet's plugin manager registered the driver at {@code endpoint}. */
  JsonNode awaitRegistered(int fromEvent) {
    return kubelet.awaitFrom(
        fromEvent,
        "the kubelet registered " + driver.driverName(),
        e ->
            e.path("event").asText().equals("registered")
                && e.path("driver").asText().equals(driver.driverName()));
  }

  /** This node's slices of the driver, as the API server holds them. */
  List<ResourceSlice> slices() throws KubeException {
    return cluster
        .admin()
        .list(
            ResourceSlice.TYPE,
            "",
            ListOptions.fields("spec.nodeName=" + name + ",spec.driver=" + DriverProcess.DRIVER))
        .items();
  }

  int publishedDevices() throws KubeException {
    return slices().stream().mapToInt(s -> s.spec().devices().size()).sum();
  }

  void awaitDevices(int devices) {
    await(
        devices + " devices of node " + name + " in the API server",
        () -> publishedDevices() == devices);
  }

  /** The CDI spec files the driver has written. */
  List<String> cdiSpecs() {
    Path dir = host.resolve("cdi");
    if (!Files.isDirectory(dir)) {
      return List.of();
    }
    try (Stream<Path> s = Files.list(dir)) {
      return s.map(p -> p.getFileName().toString())
          .filter(n -> !n.startsWith("."))
          .sorted()
          .toList();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** The text of every CDI spec, to find a device id in. */
  String cdiSpecText() {
    StringBuilder out = new StringBuilder();
    for (String f : cdiSpecs()) {
      try {
        out.append(Files.readString(host.resolve("cdi").resolve(f))).append('\n');
      } catch (IOException e) {
        // Removed meanwhile.
      }
    }
    return out.toString();
  }

  JsonNode pod(String namespace, String pod) throws KubeException {
    return cluster.admin().get(Cluster.PODS, namespace, pod);
  }

  /** Waits until the pod's status is Running (the kubelet reports it once prepared). */
  JsonNode awaitRunning(String namespace, String pod) {
    return await(
        "pod " + namespace + "/" + pod + " Running",
        () -> {
          JsonNode p = pod(namespace, pod);
          return p.path("status").path("phase").asText().equals("Running")
              ? Optional.of(p)
              : Optional.empty();
        });
  }

  /** Waits until the pod is gone from the API server. */
  void awaitGone(String namespace, String pod) {
    await(
        "pod " + namespace + "/" + pod + " deleted",
        () -> {
          try {
            pod(namespace, pod);
            return false;
          } catch (KubeException e) {
            return e.isNotFound();
          }
        });
  }

  <T> T await(String what, Await.Probe<T> probe) {
    return Await.until(what, Duration.ofSeconds(120), probe, this::context);
  }

  void await(String what, Await.Check check) {
    Await.until(what, Duration.ofSeconds(120), check, this::context);
  }

  /** What a failure message shows: the kubelet's and the driver's logs. */
  String context() {
    List<String> parts = new ArrayList<>();
    parts.add(kubelet.context());
    if (driver != null) {
      parts.add("driver log of " + name + ":\n" + DriverNode.tail(driver.log()));
    }
    return String.join("\n", parts);
  }

  @Override
  public void close() {
    if (driver != null) {
      driver.close();
    }
    kubelet.close();
    cluster.removeNode(name);
    AtomicFiles.deleteTreeQuietly(host);
  }
}
