package io.dra4j.runtime.cdi;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.dra4j.api.cdi.ContainerEdits;
import io.dra4j.api.claim.ClaimRef;
import io.dra4j.api.claim.DeviceException;
import io.dra4j.api.claim.PreparedDevice;
import io.dra4j.runtime.files.AtomicFiles;
import io.dra4j.runtime.files.ClaimUids;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Writes and removes the transient CDI spec of each prepared claim in the CDI directory (usually
 * {@code /var/run/cdi}).
 *
 * <p>One spec per claim, {@code <vendor>-<class>_<claimUID>.json}, written atomically with mode
 * 0644: the content goes to {@code .<vendor>-<class>_<claimUID>.tmp} first (a dot name not ending
 * in {@code .json} or {@code .yaml}, so CDI runtimes never load a half-written file), which is
 * forced to disk and renamed over the spec, and the directory is forced. A temporary file left by a
 * crash is reused by the next write of that claim and removed by {@link #removeOrphans}.
 *
 * <p>Calls for different claims may run concurrently; calls for the same claim are expected to be
 * serialized by the caller (the prepare pipeline does that per claim).
 */
public final class CdiSpecWriter {

  /** The CDI spec directory container runtimes read by default (containerd, CRI-O). */
  public static final Path DEFAULT_DIRECTORY = Path.of("/var/run/cdi");

  private static final Logger LOG = LoggerFactory.getLogger(CdiSpecWriter.class);
  private static final Set<PosixFilePermission> SPEC_MODE =
      PosixFilePermissions.fromString("rw-r--r--");
  private static final ObjectMapper MAPPER = new ObjectMapper();

  private final Path directory;
  private final CdiKind kind;
  private final DeviceNodeCheck nodeCheck;

  /**
   * @param directory the CDI spec directory; created on first write
   * @param kind the kind of this driver's claim specs, e.g. {@link CdiKind#forDriver}
   * @param nodeCheck checks device nodes against the host
   */
  public CdiSpecWriter(Path directory, CdiKind kind, DeviceNodeCheck nodeCheck) {
    this.directory = Objects.requireNonNull(directory, "directory");
    this.kind = Objects.requireNonNull(kind, "kind");
    this.nodeCheck = Objects.requireNonNull(nodeCheck, "nodeCheck");
  }

  public Path directory() {
    return directory;
  }

  public CdiKind kind() {
    return kind;
  }

  /** The path of a claim's spec file (which may not exist). */
  public Path specFile(String claimUid) {
    ClaimUids.check(claimUid, "a CDI spec");
    return directory.resolve(kind.transientSpecFileName(claimUid));
  }

  Path tempFile(String claimUid) {
    return directory.resolve("." + kind.transientSpecPrefix() + claimUid + ".tmp");
  }

  /**
   * Checks the claim's device nodes on the host, builds its spec and writes it. When no device has
   * edits left, no spec is written and any earlier spec of the claim is removed.
   *
   * @param claim the claim
   * @param devices what the provider prepared, one entry per allocated device
   * @param claimEdits spec-level edits applied whenever any of the claim's devices is injected
   * @return the spec and each device's CDI ids (none for a device without edits)
   * @throws DeviceException when an edit is invalid for CDI or a required device node is missing;
   *     the message names the claim, the device and the field or node
   * @throws IOException when the spec cannot be written; the previous file, if any, is unchanged
   */
  public ClaimSpec write(ClaimRef claim, List<PreparedDevice> devices, ContainerEdits claimEdits)
      throws DeviceException, IOException {
    List<PreparedDevice> checked = new ArrayList<>(devices.size());
    ClaimSpec result;
    try {
      ClaimUids.check(claim.uid(), "a CDI spec");
      CdiRules.checkEdits("claim-wide edits of claim " + claim, claimEdits);
      for (PreparedDevice p : devices) {
        CdiRules.checkEdits("device " + p.device().device() + " of claim " + claim, p.edits());
      }
      ContainerEdits checkedClaimEdits = nodeCheck.checkClaimEdits(claim, claimEdits);
      for (PreparedDevice p : devices) {
        ContainerEdits e = nodeCheck.check(claim, p.device().device(), p.edits());
        checked.add(e == p.edits() ? p : p.withEdits(e));
      }
      result = ClaimSpec.build(kind, claim, checked, checkedClaimEdits);
    } catch (IllegalArgumentException e) {
      throw new DeviceException(e.getMessage(), e);
    }
    Path file = specFile(claim.uid());
    if (result.spec().isEmpty()) {
      if (AtomicFiles.delete(file, tempFile(claim.uid()))) {
        LOG.info(
            "claim {}: no device has container edits; removed earlier CDI spec {}", claim, file);
      } else {
        LOG.debug("claim {}: no device has container edits; no CDI spec written", claim);
      }
      return result;
    }
    AtomicFiles.createDirectories(directory);
    byte[] json = result.spec().get().toJson().getBytes(StandardCharsets.UTF_8);
    AtomicFiles.write(file, tempFile(claim.uid()), json, SPEC_MODE);
    // The pipeline's own "prepared" line names the CDI ids; the file is detail.
    LOG.debug(
        "claim {}: wrote CDI spec {} (cdiVersion {}) with {}",
        claim,
        file,
        result.spec().get().cdiVersion(),
        result.allCdiDeviceIds());
    return result;
  }

  /**
   * Removes a claim's spec, if present. Idempotent.
   *
   * @return whether a spec was removed
   */
  public boolean remove(String claimUid) throws IOException {
    Path file = specFile(claimUid);
    boolean removed = AtomicFiles.delete(file, tempFile(claimUid));
    if (removed) {
      LOG.debug("claim {}: removed CDI spec {}", claimUid, file);
    }
    return removed;
  }

  /**
   * Startup cleanup: removes this driver's claim specs whose claim is not in {@code
   * claimUidsToKeep} (the claims that have a checkpoint record), and every temporary file a crash
   * left behind. Only files named {@code <vendor>-<class>_<uid>.json} whose content declares this
   * writer's kind are removed; other files, including other drivers' specs, are never touched. Call
   * it before the driver serves prepare requests.
   *
   * @return the removed files
   */
  public List<Path> removeOrphans(Set<String> claimUidsToKeep) throws IOException {
    List<Path> removed = new ArrayList<>();
    String prefix = kind.transientSpecPrefix();
    String tempPrefix = "." + prefix;
    List<Path> entries = new ArrayList<>();
    try (DirectoryStream<Path> ds = Files.newDirectoryStream(directory)) {
      ds.forEach(entries::add);
    } catch (NoSuchFileException e) {
      return List.of();
    }
    for (Path p : entries) {
      String name = p.getFileName().toString();
      if (name.startsWith(tempPrefix) && name.endsWith(".tmp")) {
        String uid = name.substring(tempPrefix.length(), name.length() - ".tmp".length());
        if (ClaimUids.isValid(uid) && Files.isRegularFile(p, LinkOption.NOFOLLOW_LINKS)) {
          Files.deleteIfExists(p);
          removed.add(p);
          LOG.info("removed temporary CDI file {} left by an interrupted write", p);
        }
        continue;
      }
      if (!name.startsWith(prefix) || !name.endsWith(".json")) {
        continue;
      }
      String uid = name.substring(prefix.length(), name.length() - ".json".length());
      if (!ClaimUids.isValid(uid)
          || claimUidsToKeep.contains(uid)
          // A link is left alone: never followed, never taken for one of our specs.
          || !Files.isRegularFile(p, LinkOption.NOFOLLOW_LINKS)) {
        continue;
      }
      if (!declaresOurKind(p)) {
        continue;
      }
      Files.deleteIfExists(p);
      removed.add(p);
      LOG.info("claim {}: removed CDI spec {}: the claim has no checkpoint record", uid, p);
    }
    if (!removed.isEmpty()) {
      AtomicFiles.syncDirectory(directory);
    }
    return List.copyOf(removed);
  }

  private boolean declaresOurKind(Path p) {
    try {
      JsonNode root = MAPPER.readTree(p.toFile());
      JsonNode k = root == null ? null : root.get("kind");
      if (k != null && kind.toString().equals(k.asText())) {
        return true;
      }
      LOG.warn("left {} alone: its name matches kind {} but its content does not", p, kind);
    } catch (IOException e) {
      LOG.warn("left {} alone: cannot read it as a CDI spec of kind {}: {}", p, kind, e.toString());
    }
    return false;
  }
}
