package io.dra4j.e2e;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.dra4j.kube.HttpKubeClient;
import io.dra4j.kube.ListOptions;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;

/**
 * Samples a node every 100 ms during a migration: its ResourceSlices (untainted devices per
 * driver), then its Node (capacity and allocatable per extended resource), then the kubelet's
 * device-manager checkpoint (which pod got a device plugin's device for which name). Slices are
 * read before the Node on purpose: while the plugin goes, devices are only added to the slices and
 * allocatable only falls, and on the way back the slices are gone before the plugin starts; so a
 * sample that shows devices and allocatable together was both at the moment the Node was read,
 * never an artefact of the two reads' order.
 */
final class MigrationSampler implements AutoCloseable {
  /** The kubelet's device-manager checkpoint (devicemanager/manager.go:135, fixed path). */
  static final Path CHECKPOINT =
      Path.of("/var/lib/kubelet/device-plugins/kubelet_internal_checkpoint");

  /** One sample: when (ns), per resource name capacity and allocatable, per driver devices. */
  record Sample(
      long nanos,
      Map<String, Long> capacity,
      Map<String, Long> allocatable,
      Map<String, Integer> untaintedDevices) {
    long capacity(String resource) {
      return capacity.getOrDefault(resource, 0L);
    }

    long allocatable(String resource) {
      return allocatable.getOrDefault(resource, 0L);
    }

    int devices(String driver) {
      return untaintedDevices.getOrDefault(driver, 0);
    }

    /** Allocatable from the device plugin while untainted DRA devices for it are published. */
    boolean doubleServed(String resource, String driver) {
      return allocatable(resource) > 0 && devices(driver) > 0;
    }
  }

  /** A pod that got a device plugin's device: its UID and the resource name. */
  record PluginGrant(String podUid, String resource) {}

  private static final ObjectMapper JSON = new ObjectMapper();

  private final HttpKubeClient client;
  private final String node;
  private final ScheduledExecutorService timer;
  private final List<Sample> samples = new ArrayList<>(); // guarded by this
  private final Set<PluginGrant> grants = new HashSet<>(); // guarded by this
  private final List<String> errors = new ArrayList<>(); // guarded by this

  private MigrationSampler(HttpKubeClient client, String node) {
    this.client = client;
    this.node = node;
    this.timer =
        Executors.newSingleThreadScheduledExecutor(
            r -> {
              Thread t = new Thread(r, "migration-sampler");
              t.setDaemon(true);
              return t;
            });
  }

  static MigrationSampler start(HttpKubeClient client, String node) {
    MigrationSampler s = new MigrationSampler(client, node);
    s.timer.scheduleAtFixedRate(s::sample, 0, 100, TimeUnit.MILLISECONDS);
    return s;
  }

  private void sample() {
    try {
      long t = System.nanoTime();
      Map<String, Integer> devices = new HashMap<>();
      for (JsonNode slice :
          client.list(Cluster.SLICES, "", ListOptions.fields("spec.nodeName=" + node)).items()) {
        int untainted = 0;
        for (JsonNode d : slice.path("spec").path("devices")) {
          if (d.path("taints").isEmpty()) {
            untainted++;
          }
        }
        devices.merge(slice.path("spec").path("driver").asText(), untainted, Integer::sum);
      }
      JsonNode status = client.get(Cluster.NODES, "", node).path("status");
      Sample s =
          new Sample(
              t,
              quantities(status.path("capacity")),
              quantities(status.path("allocatable")),
              devices);
      Set<PluginGrant> seen = checkpointGrants();
      synchronized (this) {
        samples.add(s);
        grants.addAll(seen);
      }
    } catch (Exception e) {
      synchronized (this) {
        if (errors.size() < 20) {
          errors.add(e.toString());
        }
      }
    }
  }

  private static Map<String, Long> quantities(JsonNode map) {
    Map<String, Long> out = new HashMap<>();
    map.fields()
        .forEachRemaining(
            e -> {
              String v = e.getValue().asText();
              if (v.matches("[0-9]+")) {
                out.put(e.getKey(), Long.parseLong(v));
              }
            });
    return out;
  }

  /** The checkpoint's pod entries: which pod holds a device plugin's device of which name. */
  static Set<PluginGrant> checkpointGrants() throws IOException {
    Set<PluginGrant> out = new HashSet<>();
    try {
      JsonNode cp = JSON.readTree(Files.readString(CHECKPOINT));
      for (JsonNode e : cp.path("Data").path("PodDeviceEntries")) {
        out.add(new PluginGrant(e.path("PodUID").asText(), e.path("ResourceName").asText()));
      }
    } catch (NoSuchFileException e) {
      // No device plugin has registered with this kubelet yet.
    }
    return out;
  }

  synchronized List<Sample> samples() {
    return List.copyOf(samples);
  }

  synchronized Set<PluginGrant> grants() {
    return Set.copyOf(grants);
  }

  synchronized List<String> errors() {
    return List.copyOf(errors);
  }

  /** The first sample at or after {@code fromNanos} that {@code matches}, as its time. */
  OptionalLong first(long fromNanos, Predicate<Sample> matches) {
    for (Sample s : samples()) {
      if (s.nanos() >= fromNanos && matches.test(s)) {
        return OptionalLong.of(s.nanos());
      }
    }
    return OptionalLong.empty();
  }

  /** The latest sample, if any. */
  Optional<Sample> last() {
    List<Sample> all = samples();
    return all.isEmpty() ? Optional.empty() : Optional.of(all.get(all.size() - 1));
  }

  @Override
  public void close() {
    timer.shutdownNow();
    try {
      timer.awaitTermination(5, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
