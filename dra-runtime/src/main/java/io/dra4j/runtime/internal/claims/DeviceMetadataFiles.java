package io.dra4j.runtime.internal.claims;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.dra4j.api.cdi.ContainerEdits;
import io.dra4j.api.cdi.Mount;
import io.dra4j.api.claim.ClaimRef;
import io.dra4j.api.device.Device;
import io.dra4j.api.status.DeviceStatus;
import io.dra4j.kube.KubeJson;
import io.dra4j.runtime.cdi.CdiDevice;
import io.dra4j.runtime.cdi.CdiKind;
import io.dra4j.runtime.cdi.CdiSpec;
import io.dra4j.runtime.files.AtomicFiles;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Pattern;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Device metadata (KEP-5304): for each request of a prepared claim, a {@code DeviceMetadata} file
 * under {@code <pluginDataDir>/dra-device-metadata/<ns>_<claim>/<request>/metadata.json} and a CDI
 * spec {@code <cdiDir>/<driver>_metadata_<claimUID>_<request>.json} (kind {@code
 * <driver>/metadata}, device {@code <claimUID>_<request>}) that bind-mounts it read-only at {@code
 * /var/run/kubernetes.io/dra-device-attributes/<claim>/<request>/metadata.json}, the path the Go
 * helper uses.
 *
 * <p>The file holds one object, {@code apiVersion: metadata.resource.k8s.io/v1alpha1, kind:
 * DeviceMetadata}: the Go type lives in package {@code .../api/metadata/v1alpha1}; the group name
 * is not confirmed upstream, so it is a constant here, easy to change.
 */
final class DeviceMetadataFiles {

  static final String API_VERSION = "metadata.resource.k8s.io/v1alpha1";
  static final String KIND = "DeviceMetadata";
  static final String DIRECTORY = "dra-device-metadata";
  static final String FILE = "metadata.json";
  static final String CONTAINER_ROOT = "/var/run/kubernetes.io/dra-device-attributes";
  static final String CDI_CLASS = "metadata";

  private static final Logger LOG = LoggerFactory.getLogger(DeviceMetadataFiles.class);
  private static final Set<PosixFilePermission> MODE = PosixFilePermissions.fromString("rw-r--r--");
  private static final Pattern SPEC_REST = Pattern.compile("([A-Za-z0-9.-]+)_([a-z0-9-]+)\\.json");

  /** One device of a request, as the metadata file lists it. */
  record Entry(
      String request,
      String pool,
      String device,
      Optional<Device> published,
      Optional<DeviceStatus> status) {}

  private final String driver;
  private final Path root;
  private final Path cdiDirectory;
  private final CdiKind kind;

  DeviceMetadataFiles(String driver, Path pluginDataDirectory, Path cdiDirectory) {
    this.driver = driver;
    this.root = pluginDataDirectory.resolve(DIRECTORY);
    this.cdiDirectory = cdiDirectory;
    this.kind = CdiKind.of(driver, CDI_CLASS);
  }

  /** The kind of the metadata files' CDI specs. */
  CdiKind kind() {
    return kind;
  }

  Path claimDirectory(ClaimRef claim) {
    return root.resolve(claim.namespace() + "_" + claim.name());
  }

  Path metadataFile(ClaimRef claim, String request) {
    return claimDirectory(claim).resolve(request).resolve(FILE);
  }

  Path specFile(String claimUid, String request) {
    return cdiDirectory.resolve(specPrefix() + claimUid + "_" + request + ".json");
  }

  private String specPrefix() {
    return driver + "_" + CDI_CLASS + "_";
  }

  /**
   * Writes the files of every request.
   *
   * @param entries the claim's devices, in allocation order
   * @return per request, the CDI id to add to its first device
   */
  Map<String, String> write(ClaimRef claim, Optional<String> podClaimName, List<Entry> entries)
      throws IOException {
    Map<String, List<Entry>> byRequest = new LinkedHashMap<>();
    for (Entry e : entries) {
      byRequest.computeIfAbsent(e.request(), r -> new ArrayList<>()).add(e);
    }
    Map<String, String> ids = new LinkedHashMap<>();
    for (Map.Entry<String, List<Entry>> r : byRequest.entrySet()) {
      String request = r.getKey();
      Path file = metadataFile(claim, request);
      AtomicFiles.createDirectoriesBelow(root.getParent(), file.getParent());
      AtomicFiles.write(
          file,
          file.resolveSibling("." + FILE + ".tmp"),
          content(podClaimName, request, r.getValue()),
          MODE);
      String deviceName = claim.uid() + "_" + request;
      Mount mount =
          Mount.readOnlyBind(
              file.toAbsolutePath().toString(),
              CONTAINER_ROOT + "/" + claim.name() + "/" + request + "/" + FILE);
      CdiSpec spec =
          new CdiSpec(
              kind,
              List.of(new CdiDevice(deviceName, ContainerEdits.builder().mount(mount).build())),
              ContainerEdits.NONE);
      Path specFile = specFile(claim.uid(), request);
      AtomicFiles.createDirectories(cdiDirectory);
      AtomicFiles.write(
          specFile,
          cdiDirectory.resolve("." + specFile.getFileName() + ".tmp"),
          spec.toJson().getBytes(StandardCharsets.UTF_8),
          MODE);
      ids.put(request, kind.qualify(deviceName));
    }
    LOG.info(
        "driver {} claim {}: wrote device metadata for requests {}", driver, claim, ids.keySet());
    return ids;
  }

  byte[] content(Optional<String> podClaimName, String request, List<Entry> entries) {
    ObjectNode o = KubeJson.mapper().createObjectNode();
    o.put("apiVersion", API_VERSION);
    o.put("kind", KIND);
    podClaimName.ifPresent(n -> o.put("podClaimName", n));
    ArrayNode requests = o.putArray("requests");
    ObjectNode req = requests.addObject();
    req.put("name", request);
    ArrayNode devices = req.putArray("devices");
    for (Entry e : entries) {
      ObjectNode d = devices.addObject();
      d.put("driver", driver);
      d.put("pool", e.pool());
      d.put("name", e.device());
      if (e.published().isPresent() && !e.published().get().attributes().isEmpty()) {
        d.set("attributes", KubeJson.mapper().valueToTree(e.published().get().attributes()));
      }
      e.status()
          .flatMap(DeviceStatus::networkData)
          .ifPresent(n -> d.set("networkData", KubeJson.mapper().valueToTree(n)));
    }
    try {
      return (KubeJson.mapper().writerWithDefaultPrettyPrinter().writeValueAsString(o) + "\n")
          .getBytes(StandardCharsets.UTF_8);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException(e);
    }
  }

  /** Removes the files of a recorded claim: one spec per request and the claim's directory. */
  void remove(ClaimRef claim, List<String> requests) throws IOException {
    for (String request : requests) {
      Path spec = specFile(claim.uid(), request);
      AtomicFiles.delete(spec, cdiDirectory.resolve("." + spec.getFileName() + ".tmp"));
    }
    AtomicFiles.deleteTree(claimDirectory(claim));
  }

  /**
   * Removes CDI specs of a claim that has no record (a crash before the record was written). The
   * metadata directory is named by namespace and name, which a newer claim of the same name may own
   * now, so it is left to the startup cleanup.
   */
  void removeStraySpecs(String claimUid) throws IOException {
    String prefix = specPrefix() + claimUid + "_";
    for (Path p : list(cdiDirectory)) {
      String name = p.getFileName().toString();
      if (name.startsWith(prefix) && name.endsWith(".json")) {
        Files.deleteIfExists(p);
      }
    }
  }

  /** Startup: removes specs and directories of claims not in {@code keep}. */
  List<Path> removeOrphans(Set<String> keepUids, Set<String> keepNamespacedNames)
      throws IOException {
    List<Path> removed = new ArrayList<>();
    String prefix = specPrefix();
    for (Path p : list(cdiDirectory)) {
      String name = p.getFileName().toString();
      String rest;
      if (name.startsWith(prefix)) {
        rest = name.substring(prefix.length());
      } else if (name.startsWith("." + prefix) && name.endsWith(".json.tmp")) {
        Files.deleteIfExists(p);
        removed.add(p);
        continue;
      } else {
        continue;
      }
      var m = SPEC_REST.matcher(rest);
      if (m.matches() && !keepUids.contains(m.group(1))) {
        Files.deleteIfExists(p);
        removed.add(p);
      }
    }
    for (Path dir : list(root)) {
      if (Files.isDirectory(dir) && !keepNamespacedNames.contains(dir.getFileName().toString())) {
        AtomicFiles.deleteTree(dir);
        removed.add(dir);
      }
    }
    if (!removed.isEmpty()) {
      LOG.info("driver {}: removed orphan device metadata files {}", driver, removed);
    }
    return removed;
  }

  private static List<Path> list(Path dir) throws IOException {
    List<Path> out = new ArrayList<>();
    try (DirectoryStream<Path> ds = Files.newDirectoryStream(dir)) {
      ds.forEach(out::add);
    } catch (NoSuchFileException e) {
      return List.of();
    }
    return out;
  }
}
