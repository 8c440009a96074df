package io.dra4j.nvidia;

import io.dra4j.api.provider.ProviderContext;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Pattern;

/**
 * The provider's settings, read once from {@link ProviderContext#config()}. Every bad value fails
 * with a message naming the key.
 *
 * @param driverRoot where the driver's files are visible to this process
 * @param hostDriverRoot where the host has them; host paths of mounts are written in this view
 * @param nvmlLibrary an explicit {@code libnvidia-ml.so.1} instead of searching the driver root
 * @param procRoot where the host's {@code /proc} is visible (MIG capability files)
 * @param migMode how MIG-capable GPUs are published
 * @param cdiHookPath host path of {@code nvidia-cdi-hook}; when set, soname links and the linker
 *     cache are made by the hook instead of extra bind mounts
 * @param ignoredXids XIDs that never make a device unhealthy
 * @param healthWaitMillis how long one {@code nvmlEventSetWait_v2} call waits, at most 10 s (the
 *     health thread re-reports every device that often); also bounds how long {@code close()} waits
 *     for the health thread
 * @param staticCdiKind the kind ({@code nvidia.com/gpu}) of a static CDI spec the node already has,
 *     with a device per GPU and MIG device UUID ({@code nvidia-ctk cdi generate
 *     --device-name-strategy=uuid}): when set, whole GPUs and existing MIG devices are prepared as
 *     that spec's devices instead of with container edits of this provider's
 */
record NvidiaSettings(
    Path driverRoot,
    Path hostDriverRoot,
    Optional<Path> nvmlLibrary,
    Path procRoot,
    MigMode migMode,
    Optional<String> cdiHookPath,
    Set<Long> ignoredXids,
    int healthWaitMillis,
    Optional<String> staticCdiKind) {

  static final String DRIVER_ROOT = "driver-root";
  static final String HOST_DRIVER_ROOT = "host-driver-root";
  static final String NVML_LIBRARY = "nvml-library";
  static final String PROC_ROOT = "proc-root";
  static final String MIG_MODE = "mig-mode";
  static final String CDI_HOOK_PATH = "cdi-hook-path";
  static final String IGNORED_XIDS = "ignored-xids";
  static final String HEALTH_WAIT_MS = "health-wait-ms";
  static final String STATIC_CDI_KIND = "static-cdi-kind";

  /** A CDI kind, {@code vendor/class}, as the CDI library parses one. */
  private static final Pattern CDI_KIND =
      Pattern.compile(
          "[A-Za-z](?:[A-Za-z0-9_.-]*[A-Za-z0-9])?/[A-Za-z](?:[A-Za-z0-9_.-]*[A-Za-z0-9])?");

  /** Every key this provider reads. */
  static final List<String> KEYS =
      List.of(
          DRIVER_ROOT,
          HOST_DRIVER_ROOT,
          NVML_LIBRARY,
          PROC_ROOT,
          MIG_MODE,
          CDI_HOOK_PATH,
          IGNORED_XIDS,
          HEALTH_WAIT_MS,
          STATIC_CDI_KIND);

  /**
   * XIDs the NVIDIA driver treats as application errors, not hardware faults: 13 (graphics engine
   * exception), 31 (GPU memory page fault), 43 (GPU stopped processing), 45 (preemptive cleanup),
   * 68 (video processor exception), 109 (context switch timeout).
   */
  static final Set<Long> DEFAULT_IGNORED_XIDS = Set.of(13L, 31L, 43L, 45L, 68L, 109L);

  /** How MIG-capable GPUs are published. */
  enum MigMode {
    /**
     * MIG devices that already exist are published as devices; a GPU with MIG enabled is not
     * published whole.
     */
    STATIC,
    /**
     * Every GPU instance profile and placement is published as a device drawing from a counter set
     * per GPU, next to the whole GPU; prepare creates the MIG device and unprepare destroys it.
     */
    PARTITIONABLE
  }

  NvidiaSettings {
    ignoredXids = Set.copyOf(ignoredXids);
  }

  static NvidiaSettings from(ProviderContext context) {
    Path driverRoot = absolutePath(context, DRIVER_ROOT).orElse(Path.of("/"));
    Path hostDriverRoot = absolutePath(context, HOST_DRIVER_ROOT).orElse(driverRoot);
    Optional<Path> nvmlLibrary = absolutePath(context, NVML_LIBRARY);
    Path procRoot = absolutePath(context, PROC_ROOT).orElse(Path.of("/proc"));
    MigMode migMode = migMode(context.config(MIG_MODE));
    Optional<String> hook = context.config(CDI_HOOK_PATH).map(String::trim);
    if (hook.isPresent() && !hook.get().startsWith("/")) {
      throw new IllegalArgumentException(
          "setting " + CDI_HOOK_PATH + "=\"" + hook.get() + "\" must be an absolute host path");
    }
    Set<Long> ignored =
        context.config(IGNORED_XIDS).map(NvidiaSettings::xids).orElse(DEFAULT_IGNORED_XIDS);
    int wait = context.configInt(HEALTH_WAIT_MS, 5000);
    if (wait < 1 || wait > 60_000) {
      throw new IllegalArgumentException(
          "setting " + HEALTH_WAIT_MS + "=" + wait + " must be between 1 and 60000 milliseconds");
    }
    Optional<String> staticKind =
        context.config(STATIC_CDI_KIND).map(String::trim).filter(k -> !k.isEmpty());
    if (staticKind.isPresent() && !CDI_KIND.matcher(staticKind.get()).matches()) {
      throw new IllegalArgumentException(
          "setting "
              + STATIC_CDI_KIND
              + "=\""
              + staticKind.get()
              + "\" must be a CDI kind vendor/class, e.g. nvidia.com/gpu");
    }
    return new NvidiaSettings(
        driverRoot,
        hostDriverRoot,
        nvmlLibrary,
        procRoot,
        migMode,
        hook.filter(h -> !h.isEmpty()),
        ignored,
        wait,
        staticKind);
  }

  private static Optional<Path> absolutePath(ProviderContext context, String key) {
    Optional<String> v = context.config(key).map(String::trim);
    if (v.isEmpty()) {
      return Optional.empty();
    }
    if (!v.get().startsWith("/")) {
      throw new IllegalArgumentException(
          "setting " + key + "=\"" + v.get() + "\" must be an absolute path");
    }
    return Optional.of(Path.of(v.get()).normalize());
  }

  private static MigMode migMode(Optional<String> value) {
    if (value.isEmpty()) {
      return MigMode.STATIC;
    }
    switch (value.get().trim().toLowerCase(Locale.ROOT)) {
      case "static":
        return MigMode.STATIC;
      case "partitionable":
        return MigMode.PARTITIONABLE;
      default:
        throw new IllegalArgumentException(
            "setting "
                + MIG_MODE
                + "=\""
                + value.get()
                + "\" must be \"static\" or \"partitionable\"");
    }
  }

  /** Parses {@code 13, 31,43}; an empty value ignores no XID. */
  static Set<Long> xids(String value) {
    Set<Long> out = new TreeSet<>();
    for (String part : value.split(",")) {
      String p = part.trim();
      if (p.isEmpty()) {
        continue;
      }
      try {
        long x = Long.parseLong(p);
        if (x < 0) {
          throw new NumberFormatException();
        }
        out.add(x);
      } catch (NumberFormatException e) {
        throw new IllegalArgumentException(
            "setting "
                + IGNORED_XIDS
                + "=\""
                + value
                + "\": \""
                + p
                + "\" is not an XID (a non-negative integer)",
            e);
      }
    }
    return out;
  }

  /** The host's view of a path under the driver root (unchanged when both roots are the same). */
  Path hostView(Path underDriverRoot) {
    return hostDriverRoot.resolve(driverRoot.relativize(underDriverRoot));
  }

  /** The container's view of a path under the driver root: the same path relative to {@code /}. */
  String containerView(Path underDriverRoot) {
    return "/" + driverRoot.relativize(underDriverRoot);
  }
}
