package io.dra4j.e2e;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.dra4j.runtime.testsupport.Await;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Predicate;

/**
 * The DRA half of a real kubelet for one API-only node ({@code cluster.sh kubelet}, built from
 * {@code e2e/cluster/kubelet}): the kubelet's own plugin manager watches {@link #registryDir()},
 * and its DRA manager prepares the claims of the pods bound to the node, with its checkpoint in
 * {@link #stateDir()}. Its steps are read back from the JSON lines of its log ({@code {"event":
 * "registered", ...}}); the kubelet packages' own log lines are in the same file.
 */
final class RealKubelet implements AutoCloseable {
  private static final ObjectMapper JSON = new ObjectMapper();

  private final Cluster cluster;
  private final String node;
  private final Path registryDir;
  private final Path stateDir;
  private final Path log;
  private boolean running = true;

  private RealKubelet(Cluster cluster, String node, Path registryDir, Path stateDir, Path log) {
    this.cluster = cluster;
    this.node = node;
    this.registryDir = registryDir;
    this.stateDir = stateDir;
    this.log = log;
  }

  /** Starts it and waits until its pod informer has synced. */
  static RealKubelet start(Cluster cluster, String node, Path work) {
    return start(cluster, node, work, List.of());
  }

  /**
   * Starts it with extra flags of the harness (e.g. {@code --sync-frequency=2s}) and waits until
   * its pod informer has synced.
   */
  static RealKubelet start(Cluster cluster, String node, Path work, List<String> flags) {
    Path registry = work.resolve("registry");
    Path state = work.resolve("kubelet");
    RealKubelet k =
        new RealKubelet(
            cluster, node, registry, state, cluster.kubelet(node, registry, state, flags));
    k.await("the kubelet started", e -> e.path("event").asText().equals("started"));
    return k;
  }

  Path registryDir() {
    return registryDir;
  }

  Path stateDir() {
    return stateDir;
  }

  String processName() {
    return "e2e-kubelet-" + node;
  }

  /** Every JSON event so far, oldest first (a restarted kubelet appends to the same log). */
  List<JsonNode> events() {
    List<JsonNode> out = new ArrayList<>();
    for (String line : logText().split("\n")) {
      if (line.startsWith("{")) {
        try {
          out.add(JSON.readTree(line));
        } catch (IOException e) {
          // A line being written right now; the next read sees it whole.
        }
      }
    }
    return out;
  }

  /** Waits for the first event (past or future) that matches and returns it. */
  JsonNode await(String what, Predicate<JsonNode> matches) {
    return awaitFrom(0, what, matches);
  }

  /** Waits for a matching event among those after the first {@code from} events. */
  JsonNode awaitFrom(int from, String what, Predicate<JsonNode> matches) {
    return Await.until(
        what,
        Duration.ofSeconds(120),
        () -> {
          List<JsonNode> all = events();
          return all.subList(Math.min(from, all.size()), all.size()).stream()
              .filter(matches)
              .findFirst();
        },
        this::context);
  }

  /** Waits for {@code event} for {@code pod} ({@code namespace/name}) and returns it. */
  JsonNode awaitPod(String event, String pod) {
    return awaitPodFrom(0, event, pod);
  }

  JsonNode awaitPodFrom(int from, String event, String pod) {
    return awaitFrom(
        from,
        "kubelet event " + event + " for pod " + pod,
        e -> e.path("event").asText().equals(event) && e.path("pod").asText().equals(pod));
  }

  /** The CDI device ids the kubelet hands the runtime for a container, from a prepared event. */
  static List<String> cdiIds(JsonNode prepared, String container) {
    List<String> out = new ArrayList<>();
    prepared.path("containers").path(container).forEach(id -> out.add(id.asText()));
    return out;
  }

  /** SIGKILL: the kubelet crashes; its checkpoint is what it finds when it starts again. */
  void crash() {
    cluster.stop(processName(), true);
    running = false;
  }

  /** Starts it again with the same flags and waits until it has synced. */
  void restart() {
    int from = events().size();
    cluster.start(processName());
    running = true;
    awaitFrom(from, "the kubelet started again", e -> e.path("event").asText().equals("started"));
  }

  String logText() {
    try {
      return Files.exists(log) ? Files.readString(log) : "";
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  String context() {
    return "kubelet log of " + node + ":\n" + DriverNode.tail(logText());
  }

  @Override
  public void close() {
    if (running) {
      cluster.stop(processName(), false);
      running = false;
    }
  }
}
