package io.dra4j.nvidia;

import io.dra4j.api.cdi.ContainerEdits;
import io.dra4j.api.cdi.Hook;
import io.dra4j.api.cdi.Mount;
import io.dra4j.nvidia.nvml.NvmlLoader;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The user-space driver files a CUDA container needs, found under the driver root: every library
 * whose name ends in {@code .so.<driver version>} (libcuda, libnvidia-ml, libnvidia-ptxjitcompiler
 * and the rest of that driver release) and the driver's tools ({@code nvidia-smi}, ...).
 *
 * <p>Libraries are read-only bind mounts at the same path inside the container. Applications open
 * them by soname ({@code libcuda.so.1}), so the symlinks next to each library are needed too:
 * either bind-mounted as files (the default, works with any runtime), or, when {@code
 * cdi-hook-path} is set, created by {@code nvidia-cdi-hook create-symlinks}, followed by {@code
 * nvidia-cdi-hook update-ldcache} for the library directories.
 *
 * <p>Host paths are written in the host's view ({@code host-driver-root}); container paths are the
 * paths relative to the driver root.
 */
final class DriverFiles {
  private static final Logger LOG = LoggerFactory.getLogger(DriverFiles.class);

  /** Driver tools mounted when present, relative to the driver root. */
  static final List<String> BINARIES =
      List.of(
          "usr/bin/nvidia-smi",
          "usr/bin/nvidia-debugdump",
          "usr/bin/nvidia-persistenced",
          "usr/bin/nvidia-cuda-mps-control",
          "usr/bin/nvidia-cuda-mps-server");

  static final String HOOK_ARGV0 = "nvidia-cdi-hook";

  private DriverFiles() {}

  /** A symlink to a driver library, e.g. {@code libcuda.so.1 -> libcuda.so.550.54.15}. */
  private record Link(Path link, String target, Path library) {}

  /**
   * Finds the driver files and the edits that hand them to a container.
   *
   * @param driverVersion the version exactly as NVML prints it, e.g. {@code 550.54.15}
   */
  static ContainerEdits edits(NvidiaSettings settings, String driverVersion) {
    Pattern versioned = Pattern.compile("lib.+\\.so\\." + Pattern.quote(driverVersion));
    ContainerEdits.Builder edits = ContainerEdits.builder();
    Set<Path> seenDirs = new HashSet<>();
    List<Link> links = new ArrayList<>();
    List<String> libraryDirs = new ArrayList<>();
    for (String rel : NvmlLoader.LIBRARY_DIRS) {
      Path dir = settings.driverRoot().resolve(rel);
      if (!Files.isDirectory(dir)) {
        continue;
      }
      try {
        if (!seenDirs.add(dir.toRealPath())) {
          continue; // e.g. lib64 -> usr/lib64
        }
        List<Path> entries;
        try (Stream<Path> s = Files.list(dir)) {
          entries = s.sorted().toList();
        }
        boolean any = false;
        for (Path p : entries) {
          if (Files.isRegularFile(p, LinkOption.NOFOLLOW_LINKS)
              && versioned.matcher(p.getFileName().toString()).matches()) {
            edits.mount(
                Mount.readOnlyBind(settings.hostView(p).toString(), settings.containerView(p)));
            any = true;
          }
        }
        if (any) {
          libraryDirs.add(settings.containerView(dir));
          for (Path p : entries) {
            link(p, versioned).ifPresent(links::add);
          }
        }
      } catch (IOException e) {
        throw new UncheckedIOException("cannot list driver libraries in " + dir, e);
      }
    }
    if (libraryDirs.isEmpty()) {
      LOG.warn(
          "no driver libraries *.so.{} under {} (looked in {}): containers get device nodes"
              + " but no CUDA libraries; check driver-root",
          driverVersion,
          settings.driverRoot(),
          NvmlLoader.LIBRARY_DIRS);
    }
    if (settings.cdiHookPath().isPresent()) {
      String hook = settings.cdiHookPath().get();
      if (!links.isEmpty()) {
        List<String> args = new ArrayList<>(List.of(HOOK_ARGV0, "create-symlinks"));
        for (Link l : links) {
          args.add("--link");
          args.add(l.target() + "::" + settings.containerView(l.link()));
        }
        edits.hook(Hook.createContainer(hook, args));
      }
      if (!libraryDirs.isEmpty()) {
        List<String> args = new ArrayList<>(List.of(HOOK_ARGV0, "update-ldcache"));
        for (String dir : libraryDirs) {
          args.add("--folder");
          args.add(dir);
        }
        edits.hook(Hook.createContainer(hook, args));
      }
    } else {
      for (Link l : links) {
        edits.mount(
            Mount.readOnlyBind(
                settings.hostView(l.library()).toString(), settings.containerView(l.link())));
      }
    }
    for (String rel : BINARIES) {
      Path p = settings.driverRoot().resolve(rel);
      if (Files.isRegularFile(p)) {
        edits.mount(Mount.readOnlyBind(settings.hostView(p).toString(), settings.containerView(p)));
      }
    }
    return edits.build();
  }

  /**
   * A symlink in the same directory that leads (possibly through other links, such as {@code
   * libcuda.so -> libcuda.so.1 -> libcuda.so.550.54.15}) to a versioned library.
   */
  private static Optional<Link> link(Path p, Pattern versioned) throws IOException {
    if (!Files.isSymbolicLink(p)) {
      return Optional.empty();
    }
    String target = Files.readSymbolicLink(p).toString();
    Path current = p;
    for (int hop = 0; hop < 8 && Files.isSymbolicLink(current); hop++) {
      Path next = Files.readSymbolicLink(current);
      if (next.getNameCount() != 1 || next.isAbsolute()) {
        return Optional.empty(); // only links within the directory
      }
      current = p.resolveSibling(next);
    }
    if (Files.isRegularFile(current, LinkOption.NOFOLLOW_LINKS)
        && versioned.matcher(current.getFileName().toString()).matches()) {
      return Optional.of(new Link(p, target, current));
    }
    return Optional.empty();
  }
}
