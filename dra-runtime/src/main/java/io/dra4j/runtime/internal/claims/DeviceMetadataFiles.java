package io.dra4j.runtime.internal.claims;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.dra4j.api.cdi.ContainerEdits;
import io.dra4j.api.cdi.Mount;
import io.dra4j.api.claim.ClaimRef;
import io.dra4j.api.claim.DeviceException;
import io.dra4j.api.device.DeviceAttribute;
import io.dra4j.api.metadata.DeviceMetadata;
import io.dra4j.api.status.NetworkDeviceData;
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
import java.util.TreeMap;
import java.util.regex.Pattern;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Device metadata (KEP-5304) as k8s.io/dynamic-resource-allocation v0.37.2 writes it ({@code
 * kubeletplugin/metadata.go}, abbreviated {@code metadata.go} below). For each request of a
 * prepared claim:
 *
 * <ul>
 *   <li>the host file {@code
 *       <pluginDataDir>/dra-device-metadata/<ns>_<claim>/<request>/metadata.json} ({@code
 *       metadata.go:391-401}), a {@link DeviceMetadataStream stream} with one object per version
 *       the driver writes;
 *   <li>the CDI spec {@code <cdiDir>/<driver>_metadata_<claimUID>_<request>.json}, kind {@code
 *       <driver>/metadata}, device {@code <claimUID>_<request>} ({@code metadata.go:341-407}), that
 *       bind-mounts the file read-only ({@code ro}, {@code bind}) at {@code
 *       /var/run/kubernetes.io/dra-device-attributes/resourceclaims/<claim>/<request>/<driver>-metadata.json},
 *       or under {@code resourceclaimtemplates/<podClaimName>/} for a claim made from a template
 *       ({@code metadata.go:409-416}, {@code api/metadata/helpers.go:26-36}).
 * </ul>
 *
 * The {@code <request>} of paths is the base request; the content names the request with its {@code
 * /subrequest} ({@code metadata.go:160-175}).
 */
final class DeviceMetadataFiles {

  static final String DIRECTORY = "dra-device-metadata";
  static final String FILE = "metadata.json";
  static final String CONTAINER_DIRECTORY = "/var/run/kubernetes.io/dra-device-attributes";
  static final String CLAIMS_DIRECTORY = "resourceclaims";
  static final String TEMPLATES_DIRECTORY = "resourceclaimtemplates";
  static final String FILE_SUFFIX = "-metadata.json";
  static final String CDI_CLASS = "metadata";

  /** The Go type's limit on attributes ({@code api/metadata/v1beta1/types.go:102}). */
  static final int MAX_ATTRIBUTES = 32;

  private static final Logger LOG = LoggerFactory.getLogger(DeviceMetadataFiles.class);
  private static final Set<PosixFilePermission> MODE = PosixFilePermissions.fromString("rw-r--r--");
  private static final Pattern SPEC_REST = Pattern.compile("([A-Za-z0-9.-]+)_([a-z0-9-]+)\\.json");

  /**
   * One device of a request, as the metadata file lists it.
   *
   * @param request the request with its {@code /subrequest}, if any
   * @param attributes the attributes workloads see
   * @param networkData the network data workloads see
   */
  record Entry(
      String request,
      String pool,
      String device,
      Map<String, DeviceAttribute> attributes,
      Optional<NetworkDeviceData> networkData) {

    /**
     * What the runtime knows of a device with the provider's metadata laid over it by {@link
     * #update}'s rule: the provider's attributes replace published ones of the same name, its
     * network data replaces the claim status's.
     */
    static Entry of(
        String request,
        String pool,
        String device,
        Map<String, DeviceAttribute> published,
        Optional<NetworkDeviceData> statusNetworkData,
        Optional<DeviceMetadata> provided) {
      Map<String, DeviceAttribute> attributes = new TreeMap<>(published);
      provided.ifPresent(m -> attributes.putAll(m.attributes()));
      return new Entry(
          request,
          pool,
          device,
          attributes,
          provided.flatMap(DeviceMetadata::networkData).or(() -> statusNetworkData));
    }
  }

  private final String driver;
  private final Path root;
  private final Path cdiDirectory;
  private final CdiKind kind;
  private final DeviceMetadataStream stream;

  DeviceMetadataFiles(
      String driver, Path pluginDataDirectory, Path cdiDirectory, List<String> versions) {
    this.driver = driver;
    this.root = pluginDataDirectory.resolve(DIRECTORY);
    this.cdiDirectory = cdiDirectory;
    this.kind = CdiKind.of(driver, CDI_CLASS);
    this.stream = new DeviceMetadataStream(versions);
  }

  /** The kind of the metadata files' CDI specs. */
  CdiKind kind() {
    return kind;
  }

  Path claimDirectory(ClaimRef claim) {
    return root.resolve(claim.namespace() + "_" + claim.name());
  }

  Path metadataFile(ClaimRef claim, String baseRequest) {
    return claimDirectory(claim).resolve(baseRequest).resolve(FILE);
  }

  Path specFile(String claimUid, String baseRequest) {
    return cdiDirectory.resolve(specPrefix() + claimUid + "_" + baseRequest + ".json");
  }

  /**
   * Where containers see a request's file: by the pod's own name for the claim when the claim was
   * made from a template (the claim's name is generated), else by the claim's name.
   */
  String containerPath(ClaimRef claim, Optional<String> podClaimName, String baseRequest) {
    String owner =
        podClaimName.filter(n -> !n.isEmpty()).isPresent()
            ? TEMPLATES_DIRECTORY + "/" + podClaimName.get()
            : CLAIMS_DIRECTORY + "/" + claim.name();
    return CONTAINER_DIRECTORY + "/" + owner + "/" + baseRequest + "/" + driver + FILE_SUFFIX;
  }

  private String specPrefix() {
    return driver + "_" + CDI_CLASS + "_";
  }

  static String baseRequest(String request) {
    int slash = request.indexOf('/');
    return slash < 0 ? request : request.substring(0, slash);
  }

  /**
   * Writes the files of every request, generation 1 ({@code metadata.go:253-276}).
   *
   * @param podClaimName the claim's {@code resource.kubernetes.io/pod-claim-name} annotation, when
   *     it has one
   * @param entries the claim's devices, in allocation order
   * @return per base request, the CDI id to add to its first device
   */
  Map<String, String> write(ClaimRef claim, Optional<String> podClaimName, List<Entry> entries)
      throws DeviceException, IOException {
    for (Entry e : entries) {
      if (e.attributes().size() > MAX_ATTRIBUTES) {
        throw refused(claim, e.pool(), e.device(), tooMany(e.attributes().size()));
      }
    }
    Map<String, List<Entry>> byRequest = new LinkedHashMap<>();
    for (Entry e : entries) {
      byRequest.computeIfAbsent(e.request(), r -> new ArrayList<>()).add(e);
    }
    Map<String, String> ids = new LinkedHashMap<>();
    for (Map.Entry<String, List<Entry>> r : byRequest.entrySet()) {
      String base = baseRequest(r.getKey());
      Path file = metadataFile(claim, base);
      AtomicFiles.createDirectoriesBelow(root.getParent(), file.getParent());
      writeFile(file, stream.encode(content(claim, 1, podClaimName, r.getKey(), r.getValue())));
      String deviceName = claim.uid() + "_" + base;
      // Options as upstream's (metadata.go:358): a plain read-only bind of one file.
      Mount mount =
          Mount.builder(file.toAbsolutePath().toString(), containerPath(claim, podClaimName, base))
              .options(List.of("ro", "bind"))
              .build();
      CdiSpec spec =
          new CdiSpec(
              kind,
              List.of(new CdiDevice(deviceName, ContainerEdits.builder().mount(mount).build())),
              ContainerEdits.NONE);
      Path specFile = specFile(claim.uid(), base);
      AtomicFiles.createDirectories(cdiDirectory);
      AtomicFiles.write(
          specFile,
          cdiDirectory.resolve("." + specFile.getFileName() + ".tmp"),
          spec.toJson().getBytes(StandardCharsets.UTF_8),
          MODE);
      ids.put(base, kind.qualify(deviceName));
    }
    LOG.info(
        "driver {} claim {}: wrote device metadata for requests {}", driver, claim, ids.keySet());
    return ids;
  }

  /**
   * Rewrites one request's file with a provider's metadata laid over what it holds, generation + 1
   * ({@code metadata.go:202-246}). The file must exist: only a prepare creates one.
   *
   * @throws DeviceException when the request has no file of this claim, a device is not the
   *     request's, or the result breaks the format's limits; the file is then unchanged
   */
  void update(ClaimRef claim, String request, List<DeviceMetadata> devices)
      throws DeviceException, IOException {
    Path file = metadataFile(claim, baseRequest(request));
    Optional<byte[]> existing = AtomicFiles.readIfPresent(file);
    ObjectNode current;
    try {
      current = existing.isPresent() ? DeviceMetadataStream.decode(existing.get()) : null;
    } catch (IOException e) {
      throw new DeviceException(
          "device metadata of claim " + claim + ", request " + request + ": " + e.getMessage(), e);
    }
    // The directory is named by namespace and name: a claim of the same name with another UID
    // does not own it.
    if (current == null || !claim.uid().equals(current.path("metadata").path("uid").asText())) {
      throw notFound(claim, request);
    }
    ArrayNode listed = (ArrayNode) current.path("requests").path(0).path("devices");
    for (DeviceMetadata d : devices) {
      ObjectNode node = find(listed, d.pool(), d.device());
      if (node == null) {
        throw refused(
            claim, d.pool(), d.device(), "is not one of request \"" + request + "\"'s devices");
      }
      Map<String, JsonNode> attributes = new TreeMap<>();
      node.path("attributes")
          .fields()
          .forEachRemaining(f -> attributes.put(f.getKey(), f.getValue()));
      d.attributes().forEach((k, v) -> attributes.put(k, KubeJson.mapper().valueToTree(v)));
      if (attributes.size() > MAX_ATTRIBUTES) {
        throw refused(claim, d.pool(), d.device(), tooMany(attributes.size()));
      }
      if (!attributes.isEmpty()) {
        node.putObject("attributes").setAll(attributes);
      }
      d.networkData().ifPresent(n -> node.set("networkData", KubeJson.mapper().valueToTree(n)));
    }
    long generation = current.path("metadata").path("generation").asLong() + 1;
    ((ObjectNode) current.path("metadata")).put("generation", generation);
    ((ObjectNode) current.path("requests").path(0)).put("name", request);
    writeFile(file, stream.encode(current));
    LOG.info(
        "driver {} claim {}: updated device metadata of request {} (generation {})",
        driver,
        claim,
        request,
        generation);
  }

  /** Upstream's words for a request without a file ({@code metadata.go:218-222}). */
  static DeviceException notFound(ClaimRef claim, String request) {
    return new DeviceException(
        "request \""
            + request
            + "\" not found in prepared claim "
            + claim.namespace()
            + "/"
            + claim.name());
  }

  private DeviceException refused(ClaimRef claim, String pool, String device, String why) {
    return new DeviceException(
        "claim "
            + claim
            + ": device metadata of "
            + driver
            + " device "
            + pool
            + "/"
            + device
            + ": "
            + why);
  }

  private static String tooMany(int attributes) {
    return "would have " + attributes + " attributes, at most " + MAX_ATTRIBUTES;
  }

  private static ObjectNode find(ArrayNode devices, String pool, String device) {
    for (JsonNode d : devices) {
      if (pool.equals(d.path("pool").asText()) && device.equals(d.path("name").asText())) {
        return (ObjectNode) d;
      }
    }
    return null;
  }

  private static void writeFile(Path file, byte[] content) throws IOException {
    AtomicFiles.write(file, file.resolveSibling("." + FILE + ".tmp"), content, MODE);
  }

  /**
   * The object without its type: the {@code metadata} block ({@code metadata.go:306-312}), {@code
   * podClaimName} and the one request, in the Go type's field order.
   */
  ObjectNode content(
      ClaimRef claim,
      long generation,
      Optional<String> podClaimName,
      String request,
      List<Entry> entries) {
    ObjectNode o = KubeJson.mapper().createObjectNode();
    ObjectNode meta = o.putObject("metadata");
    meta.put("name", claim.name());
    meta.put("namespace", claim.namespace());
    meta.put("uid", claim.uid());
    meta.put("generation", generation);
    podClaimName.ifPresent(n -> o.put("podClaimName", n));
    ObjectNode req = o.putArray("requests").addObject();
    req.put("name", request);
    ArrayNode devices = req.putArray("devices");
    for (Entry e : entries) {
      ObjectNode d = devices.addObject();
      d.put("driver", driver);
      d.put("pool", e.pool());
      d.put("name", e.device());
      if (!e.attributes().isEmpty()) {
        d.set("attributes", KubeJson.mapper().valueToTree(new TreeMap<>(e.attributes())));
      }
      e.networkData().ifPresent(n -> d.set("networkData", KubeJson.mapper().valueToTree(n)));
    }
    return o;
  }

  /** Removes the files of a recorded claim: one spec per request and the claim's directory. */
  void remove(ClaimRef claim, List<String> baseRequests) throws IOException {
    for (String request : baseRequests) {
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
