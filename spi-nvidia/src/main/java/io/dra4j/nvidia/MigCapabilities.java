package io.dra4j.nvidia;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;

/**
 * The device nodes that grant access to one MIG device. The kernel driver describes each GPU and
 * compute instance in {@code /proc/driver/nvidia/capabilities/gpu<minor>/mig/gi<G>[/ci<C>]/access}
 * with a {@code DeviceFileMinor: N} line; the node is {@code /dev/nvidia-caps/nvidia-cap<N>}, of
 * the character device major that {@code /proc/devices} lists as {@code nvidia-caps}.
 */
final class MigCapabilities {
  private MigCapabilities() {}

  static final String CAPS_DEVICE_NAME = "nvidia-caps";

  static Path gpuInstanceAccess(Path procRoot, int gpuMinor, int gpuInstanceId) {
    return procRoot.resolve(
        "driver/nvidia/capabilities/gpu" + gpuMinor + "/mig/gi" + gpuInstanceId + "/access");
  }

  static Path computeInstanceAccess(
      Path procRoot, int gpuMinor, int gpuInstanceId, int computeInstanceId) {
    return procRoot.resolve(
        "driver/nvidia/capabilities/gpu"
            + gpuMinor
            + "/mig/gi"
            + gpuInstanceId
            + "/ci"
            + computeInstanceId
            + "/access");
  }

  /**
   * The {@code DeviceFileMinor} of an access file.
   *
   * @throws IOException naming the file when it is missing or has no such line
   */
  static int deviceFileMinor(Path accessFile) throws IOException {
    List<String> lines;
    try {
      lines = Files.readAllLines(accessFile, StandardCharsets.UTF_8);
    } catch (NoSuchFileException e) {
      throw new IOException(
          accessFile + " does not exist (is proc-root right, and does the MIG instance exist?)", e);
    }
    for (String line : lines) {
      int colon = line.indexOf(':');
      if (colon > 0 && line.substring(0, colon).trim().equals("DeviceFileMinor")) {
        try {
          return Integer.parseInt(line.substring(colon + 1).trim());
        } catch (NumberFormatException e) {
          throw new IOException(accessFile + ": DeviceFileMinor \"" + line + "\" is not a number");
        }
      }
    }
    throw new IOException(accessFile + " has no DeviceFileMinor line");
  }

  /** The character major of {@code nvidia-caps} from {@code <procRoot>/devices}, if listed. */
  static Optional<Long> capsMajor(Path procRoot) {
    try {
      boolean character = false;
      for (String line : Files.readAllLines(procRoot.resolve("devices"), StandardCharsets.UTF_8)) {
        String t = line.trim();
        if (t.startsWith("Character devices")) {
          character = true;
        } else if (t.startsWith("Block devices")) {
          character = false;
        } else if (character) {
          String[] parts = t.split("\\s+");
          if (parts.length == 2 && parts[1].equals(CAPS_DEVICE_NAME)) {
            return Optional.of(Long.parseLong(parts[0]));
          }
        }
      }
    } catch (IOException | NumberFormatException e) {
      // Without the major the runtime stats the host node instead; nothing lost.
    }
    return Optional.empty();
  }
}
