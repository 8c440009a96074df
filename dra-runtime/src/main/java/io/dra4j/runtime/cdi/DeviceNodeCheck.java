package io.dra4j.runtime.cdi;

import io.dra4j.api.cdi.ContainerEdits;
import io.dra4j.api.cdi.DeviceNode;
import io.dra4j.api.claim.ClaimRef;
import io.dra4j.api.claim.DeviceException;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Checks at prepare time that the host has the device nodes a claim's edits name, so a claim never
 * gets a CDI spec whose device the container would silently lack (the failure behind
 * kubernetes-sigs/dra-driver-nvidia-gpu#1380). A missing {@linkplain DeviceNode#required()
 * required} node fails the prepare with a message naming the claim, the device and the node; a
 * missing optional node is left out of the edits (and logged).
 *
 * <p>Nodes are looked up through the dev root, where the host's {@code /dev} is visible to the
 * driver (e.g. {@code /host/dev} in a container): host path {@code /dev/nvidia3} is checked at
 * {@code <devRoot>/nvidia3}. A host path outside {@code /dev} is checked as it is. The edits
 * themselves keep the host's view: the container runtime, not the driver, reads them.
 */
public final class DeviceNodeCheck {
  private static final Logger LOG = LoggerFactory.getLogger(DeviceNodeCheck.class);
  private static final Path DEV = Path.of("/dev");

  /** What is found at a node's path. */
  enum NodeState {
    /** A character or block device (or another special file: FIFO, socket). */
    SPECIAL,
    /** A regular file, as in a fake dev tree used by tests and simulated devices. */
    REGULAR_FILE,
    DIRECTORY,
    MISSING
  }

  /** Looks at a path on the file system; replaced in unit tests of the pure decision. */
  @FunctionalInterface
  interface Probe {
    NodeState probe(Path path) throws IOException;
  }

  private final Path devRoot;
  private final Probe probe;

  /** A check that looks up host nodes under {@code devRoot}. */
  public DeviceNodeCheck(Path devRoot) {
    this(devRoot, DeviceNodeCheck::probeFileSystem);
  }

  DeviceNodeCheck(Path devRoot, Probe probe) {
    this.devRoot = Objects.requireNonNull(devRoot, "devRoot");
    this.probe = Objects.requireNonNull(probe, "probe");
  }

  /** The dev root nodes are looked up in. */
  public Path devRoot() {
    return devRoot;
  }

  /**
   * Where the driver finds a node's host path: under the dev root for paths in {@code /dev}, the
   * path itself otherwise.
   */
  public Path hostCheckPath(DeviceNode node) {
    Path host = Path.of(node.hostPathOrPath()).normalize();
    if (host.startsWith(DEV)) {
      return devRoot.resolve(DEV.relativize(host).toString());
    }
    return host;
  }

  /**
   * The edits of one device, minus its optional nodes that the host lacks.
   *
   * @throws DeviceException when a required node is missing or is a directory, or cannot be checked
   */
  public ContainerEdits check(ClaimRef claim, String device, ContainerEdits edits)
      throws DeviceException {
    return check("device " + device + " of claim " + claim, edits);
  }

  /** As {@link #check(ClaimRef, String, ContainerEdits)}, for a claim's spec-level edits. */
  public ContainerEdits checkClaimEdits(ClaimRef claim, ContainerEdits edits)
      throws DeviceException {
    return check("the claim-wide edits of claim " + claim, edits);
  }

  private ContainerEdits check(String owner, ContainerEdits edits) throws DeviceException {
    if (edits.deviceNodes().isEmpty()) {
      return edits;
    }
    List<DeviceNode> kept = new ArrayList<>(edits.deviceNodes().size());
    for (DeviceNode node : edits.deviceNodes()) {
      Path at = hostCheckPath(node);
      NodeState state;
      try {
        state = probe.probe(at);
      } catch (IOException e) {
        throw new DeviceException(
            "cannot check device node "
                + node.hostPathOrPath()
                + " for "
                + owner
                + " (checked "
                + at
                + "): "
                + e,
            e);
      }
      String problem =
          switch (state) {
            case SPECIAL, REGULAR_FILE -> null;
            case DIRECTORY -> "is a directory, not a device node";
            case MISSING -> "does not exist on the host";
          };
      if (problem == null) {
        kept.add(node);
      } else if (node.required()) {
        throw new DeviceException(
            "required device node "
                + node.hostPathOrPath()
                + " for "
                + owner
                + " "
                + problem
                + " (checked "
                + at
                + ")");
      } else {
        LOG.info(
            "optional device node {} for {} {} (checked {}); left out of the CDI spec",
            node.hostPathOrPath(),
            owner,
            problem,
            at);
      }
    }
    if (kept.size() == edits.deviceNodes().size()) {
      return edits;
    }
    return edits.withDeviceNodes(kept);
  }

  static NodeState probeFileSystem(Path path) throws IOException {
    BasicFileAttributes a;
    try {
      // Follows symbolic links: /dev/dri/by-path entries and the like name the node they point to.
      a = Files.readAttributes(path, BasicFileAttributes.class);
    } catch (NoSuchFileException e) {
      return NodeState.MISSING;
    }
    if (a.isDirectory()) {
      return NodeState.DIRECTORY;
    }
    return a.isOther() ? NodeState.SPECIAL : NodeState.REGULAR_FILE;
  }
}
