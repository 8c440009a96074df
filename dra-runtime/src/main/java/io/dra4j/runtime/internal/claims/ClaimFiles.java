package io.dra4j.runtime.internal.claims;

import io.dra4j.api.cdi.ContainerEdits;
import io.dra4j.api.claim.AllocatedDevice;
import io.dra4j.api.claim.ClaimRef;
import io.dra4j.api.claim.DeviceException;
import io.dra4j.api.claim.PreparedDevice;
import io.dra4j.api.device.Device;
import io.dra4j.api.metadata.DeviceMetadata;
import io.dra4j.api.status.DeviceStatus;
import io.dra4j.runtime.cdi.CdiSpecDirectories;
import io.dra4j.runtime.cdi.CdiSpecWriter;
import io.dra4j.runtime.cdi.ClaimSpec;
import io.dra4j.runtime.internal.checkpoint.CheckpointDevice;
import io.dra4j.runtime.internal.checkpoint.CheckpointListing;
import io.dra4j.runtime.internal.checkpoint.ClaimCheckpoint;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * The files a prepared claim leaves on the node for the container runtime: its CDI spec and, when
 * the driver writes them, its device metadata files (KEP-5304) with their own CDI specs. Writes
 * them at prepare, removes them with the claim's record, and at startup removes those no record
 * accounts for.
 */
final class ClaimFiles {

  static final String POD_CLAIM_NAME_ANNOTATION = "resource.kubernetes.io/pod-claim-name";

  private final CdiSpecWriter cdi;
  private final Optional<DeviceMetadataFiles> metadata;
  private final DeviceLookup lookup;
  private final Path metadataRoot;
  private final CdiSpecDirectories specDirectories;

  /**
   * @param staticCdiDirectory where the static CDI specs are, besides the writer's directory: the
   *     CDI device ids a provider manages itself must name a device of a spec in one of the two
   */
  ClaimFiles(
      CdiSpecWriter cdi,
      Optional<DeviceMetadataFiles> metadata,
      DeviceLookup lookup,
      Path pluginDataDirectory,
      Path staticCdiDirectory) {
    this.cdi = cdi;
    this.metadata = metadata;
    this.lookup = lookup;
    this.metadataRoot = pluginDataDirectory.resolve(DeviceMetadataFiles.DIRECTORY);
    Set<String> ours = new HashSet<>();
    ours.add(cdi.kind().toString());
    metadata.ifPresent(m -> ours.add(m.kind().toString()));
    this.specDirectories =
        new CdiSpecDirectories(
            staticCdiDirectory.equals(cdi.directory())
                ? List.of(cdi.directory())
                : List.of(staticCdiDirectory, cdi.directory()),
            ours);
  }

  /**
   * Checks the CDI devices the provider manages itself, then writes the claim's files.
   *
   * @param devices what the provider prepared, in allocation order
   * @return per device, in the same order, the CDI ids the kubelet gets for it: the CDI device of
   *     its edits (none without edits), the provider's own, and, on the first device of each
   *     request, the request's metadata
   * @throws DeviceException when an edit is invalid for CDI, a device node is missing, or a CDI
   *     device id of the provider's names no device of a spec in the CDI spec directories
   * @throws IOException when a file cannot be written
   */
  List<List<String>> write(ResolvedClaim claim, List<PreparedDevice> devices)
      throws DeviceException, IOException {
    for (PreparedDevice p : devices) {
      if (!p.cdiDeviceIds().isEmpty()) {
        specDirectories.requireDevices(
            "device " + ResultCheck.describe(p.device()) + " of claim " + claim.ref(),
            p.cdiDeviceIds());
      }
    }
    ClaimSpec spec = cdi.write(claim.ref(), devices, ContainerEdits.NONE);
    Map<String, String> metadataIds =
        metadata.isPresent() ? writeMetadata(claim, devices) : Map.of();
    List<List<String>> out = new ArrayList<>(devices.size());
    Set<String> requestsWithId = new HashSet<>();
    for (int i = 0; i < devices.size(); i++) {
      String request = devices.get(i).device().request();
      List<String> ids = new ArrayList<>(spec.cdiDeviceIds().get(i));
      ids.addAll(devices.get(i).cdiDeviceIds());
      String metadataId = metadataIds.get(request);
      if (metadataId != null && requestsWithId.add(request)) {
        ids.add(metadataId);
      }
      out.add(ids);
    }
    return out;
  }

  private Map<String, String> writeMetadata(ResolvedClaim claim, List<PreparedDevice> devices)
      throws DeviceException, IOException {
    List<DeviceMetadataFiles.Entry> entries = new ArrayList<>();
    for (PreparedDevice p : devices) {
      AllocatedDevice d = p.device();
      // What the runtime knows itself: the attributes the device is published with and the
      // network data of its claim status, with the provider's metadata over them (upstream
      // writes only what the driver returns, metadata.go:294-302, and recommends the published
      // attributes, draplugin.go:297-303).
      entries.add(
          DeviceMetadataFiles.Entry.of(
              d.subrequest().map(s -> d.request() + "/" + s).orElse(d.request()),
              d.pool(),
              d.device(),
              lookup.find(d.pool(), d.device()).map(Device::attributes).orElse(Map.of()),
              p.status().flatMap(DeviceStatus::networkData),
              p.metadata()));
    }
    Map<String, String> annotations = claim.claim().metadata().annotations();
    Optional<String> podClaimName =
        annotations == null
            ? Optional.empty()
            : Optional.ofNullable(annotations.get(POD_CLAIM_NAME_ANNOTATION));
    return metadata.get().write(claim.ref(), podClaimName, entries);
  }

  /**
   * Rewrites one request's device metadata with a provider's additions. The caller holds the
   * claim's lock and has checked that the claim is prepared.
   *
   * @throws DeviceException when this driver writes no metadata, or as {@link
   *     DeviceMetadataFiles#update} says
   */
  void updateMetadata(ClaimRef claim, String request, List<DeviceMetadata> devices)
      throws DeviceException, IOException {
    if (metadata.isEmpty()) {
      throw new DeviceException("device metadata is not enabled");
    }
    metadata.get().update(claim, request, devices);
  }

  /** Removes the files of a recorded claim. Idempotent. */
  void remove(ClaimCheckpoint record) throws IOException {
    cdi.remove(record.claim().uid());
    if (metadata.isPresent()) {
      List<String> requests =
          record.devices().stream().map(CheckpointDevice::request).distinct().toList();
      metadata.get().remove(record.claim(), requests);
    }
  }

  /** Removes what a claim without a record may have left (a crash before its record). */
  void removeStrays(ClaimRef claim) throws IOException {
    cdi.remove(claim.uid());
    if (metadata.isPresent()) {
      metadata.get().removeStraySpecs(claim.uid());
    }
  }

  /**
   * Startup: removes this driver's files that no record accounts for.
   *
   * @param kept the records that stay
   * @param listing the store's listing: an unreadable record may belong to any claim, so its UID
   *     (when known) and every metadata directory are kept
   * @return the removed files
   */
  List<Path> removeOrphans(List<ClaimCheckpoint> kept, CheckpointListing listing)
      throws IOException {
    Set<String> keepUids = new HashSet<>();
    Set<String> keepNames = new HashSet<>();
    for (ClaimCheckpoint r : kept) {
      keepUids.add(r.claim().uid());
      keepNames.add(r.claim().namespace() + "_" + r.claim().name());
    }
    listing.problems().forEach(p -> p.claimUid().ifPresent(keepUids::add));
    List<Path> removed = new ArrayList<>(cdi.removeOrphans(keepUids));
    if (metadata.isPresent()) {
      removed.addAll(
          metadata
              .get()
              .removeOrphans(keepUids, listing.problems().isEmpty() ? keepNames : allNames()));
    }
    return removed;
  }

  private Set<String> allNames() throws IOException {
    Set<String> names = new HashSet<>();
    if (Files.isDirectory(metadataRoot)) {
      try (var s = Files.list(metadataRoot)) {
        s.forEach(p -> names.add(p.getFileName().toString()));
      }
    }
    return names;
  }
}
