package io.dra4j.nvidia.nvml;

import com.sun.jna.Native;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * Loads {@code libnvidia-ml.so.1} on demand. Nothing is loaded at class initialisation, so a host
 * without the NVIDIA driver gets a clear {@link NvmlUnavailableException} from {@link #load}
 * instead of a {@link NoClassDefFoundError} on every later use.
 *
 * <p>Only the versioned file name is looked for: drivers ship {@code libnvidia-ml.so.1}; the
 * unversioned symlink comes from a development package.
 */
public final class NvmlLoader {

  /** The file name of the NVML library. */
  public static final String LIBRARY = "libnvidia-ml.so.1";

  /**
   * Library directories, relative to a driver root, in search order: Red Hat style, Debian
   * multiarch (x86_64, aarch64), then the generic ones.
   */
  public static final List<String> LIBRARY_DIRS =
      List.of(
          "usr/lib64", "usr/lib/x86_64-linux-gnu", "usr/lib/aarch64-linux-gnu", "lib64", "usr/lib");

  private NvmlLoader() {}

  /** The files {@link #load} tries for a driver root, in order. */
  public static List<Path> candidates(Path driverRoot) {
    List<Path> out = new ArrayList<>();
    for (String dir : LIBRARY_DIRS) {
      out.add(driverRoot.resolve(dir).resolve(LIBRARY));
    }
    return List.copyOf(out);
  }

  /**
   * Loads NVML.
   *
   * @param driverRoot where the driver's files are visible to this process ({@code /}, or e.g.
   *     {@code /run/nvidia/driver} when the driver is installed by a driver container)
   * @param explicitLibrary a library file to use instead of searching
   * @throws NvmlUnavailableException naming every location tried
   */
  public static Nvml load(Path driverRoot, Optional<Path> explicitLibrary) {
    List<String> tried = new ArrayList<>();
    Throwable lastError = null;
    List<Path> files = explicitLibrary.map(List::of).orElseGet(() -> candidates(driverRoot));
    for (Path file : files) {
      if (!Files.exists(file)) {
        tried.add(file + " (not found)");
        continue;
      }
      try {
        NvmlLibrary lib = Native.load(file.toAbsolutePath().toString(), NvmlLibrary.class);
        return new JnaNvml(lib, file.toAbsolutePath().toString());
      } catch (UnsatisfiedLinkError e) {
        tried.add(file + " (" + e.getMessage() + ")");
        lastError = e;
      }
    }
    // On the host's own root the system loader knows more places (ld.so.cache, jna.library.path).
    if (explicitLibrary.isEmpty() && driverRoot.toAbsolutePath().normalize().equals(Path.of("/"))) {
      String where = LIBRARY + " through the system library path and jna.library.path";
      try {
        NvmlLibrary lib = Native.load("nvidia-ml", NvmlLibrary.class);
        return new JnaNvml(lib, where);
      } catch (UnsatisfiedLinkError e) {
        tried.add(where + " (not found)");
        lastError = e;
      }
    }
    throw new NvmlUnavailableException(
        "cannot load the NVIDIA management library "
            + LIBRARY
            + "; tried: "
            + String.join(", ", tried)
            + ". Set driver-root to where the NVIDIA driver is installed as seen by this process"
            + " (e.g. /run/nvidia/driver), or nvml-library to the library file",
        tried,
        lastError);
  }
}
