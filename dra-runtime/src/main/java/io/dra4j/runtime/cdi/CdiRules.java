package io.dra4j.runtime.cdi;

import io.dra4j.api.cdi.ContainerEdits;
import io.dra4j.api.cdi.DeviceNode;
import io.dra4j.api.cdi.Hook;
import io.dra4j.api.cdi.Mount;
import java.util.List;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * The naming and content rules of the CDI reference library v0.5.2 (the strictest library still in
 * use, e.g. by podman 4.3), checked before a spec is written so that a runtime never meets a spec
 * it rejects, or worse, panics on.
 */
final class CdiRules {
  /** Two characters at least: a one-character vendor panics the reference library and podman. */
  static final Pattern VENDOR = Pattern.compile("[A-Za-z][A-Za-z0-9._-]*[A-Za-z0-9]");

  /** As the vendor, without a dot (a dot needs spec 0.6.0, which v0.5 runtimes refuse). */
  static final Pattern CLASS = Pattern.compile("[A-Za-z][A-Za-z0-9_-]*[A-Za-z0-9]");

  static final Pattern DEVICE_NAME = Pattern.compile("[A-Za-z0-9]([A-Za-z0-9_.:-]*[A-Za-z0-9])?");

  private static final Set<String> NODE_TYPES = Set.of("b", "c", "u", "p");

  private CdiRules() {}

  static void checkDeviceName(String name) {
    if (!DEVICE_NAME.matcher(name).matches()) {
      throw new IllegalArgumentException(
          "CDI device name \""
              + name
              + "\" is invalid: it must start and end with a letter or digit and contain only"
              + " letters, digits, '_', '.', ':' or '-'");
    }
  }

  /**
   * Checks container edits against what CDI runtimes accept.
   *
   * @param where names the owner in messages, e.g. {@code device gpu-0 of claim ns/c (uid)}
   */
  static void checkEdits(String where, ContainerEdits edits) {
    List<String> env = edits.env();
    for (int i = 0; i < env.size(); i++) {
      checkEnv(where + ": env[" + i + "]", env.get(i));
    }
    List<DeviceNode> nodes = edits.deviceNodes();
    for (int i = 0; i < nodes.size(); i++) {
      checkNode(where + ": deviceNodes[" + i + "]", nodes.get(i));
    }
    List<Mount> mounts = edits.mounts();
    for (int i = 0; i < mounts.size(); i++) {
      checkMount(where + ": mounts[" + i + "]", mounts.get(i));
    }
    List<Hook> hooks = edits.hooks();
    for (int i = 0; i < hooks.size(); i++) {
      checkHook(where + ": hooks[" + i + "]", hooks.get(i));
    }
  }

  private static void checkEnv(String where, String entry) {
    if (entry.indexOf('=') <= 0) {
      throw new IllegalArgumentException(
          where + " \"" + entry + "\" must have the form KEY=VALUE with a non-empty key");
    }
  }

  private static void checkNode(String where, DeviceNode n) {
    String at = where + " (" + n.path() + ")";
    checkAbsolute(at, "path", n.path());
    n.hostPath().ifPresent(h -> checkAbsolute(at, "hostPath", h));
    n.type()
        .ifPresent(
            t -> {
              if (!NODE_TYPES.contains(t)) {
                throw new IllegalArgumentException(
                    at + ": type \"" + t + "\" must be one of b, c, u, p");
              }
            });
    if (n.major().isPresent() != n.minor().isPresent()) {
      throw new IllegalArgumentException(at + ": major and minor must be given together");
    }
    if (n.major().isPresent()) {
      if (n.type().isEmpty() || n.type().get().equals("p")) {
        throw new IllegalArgumentException(
            at + ": major and minor need a type of b, c or u (they are ignored without one)");
      }
      if (n.major().get() < 0 || n.minor().get() < 0) {
        throw new IllegalArgumentException(at + ": major and minor must not be negative");
      }
    }
    n.permissions()
        .ifPresent(
            p -> {
              if (p.isEmpty() || !p.chars().allMatch(c -> c == 'r' || c == 'w' || c == 'm')) {
                throw new IllegalArgumentException(
                    at + ": permissions \"" + p + "\" must be a non-empty subset of rwm");
              }
            });
    n.fileMode()
        .ifPresent(
            m -> {
              if (m < 0 || m > 07777) {
                throw new IllegalArgumentException(
                    at + ": fileMode " + m + " must be between 0 and 07777 (octal)");
              }
            });
    n.uid().ifPresent(u -> checkNotNegative(at, "uid", u));
    n.gid().ifPresent(g -> checkNotNegative(at, "gid", g));
  }

  private static void checkMount(String where, Mount m) {
    String at = where + " (" + m.containerPath() + ")";
    if (m.hostPath().isEmpty()) {
      throw new IllegalArgumentException(at + ": hostPath must not be empty");
    }
    checkAbsolute(at, "containerPath", m.containerPath());
    if (m.type().isPresent() && m.type().get().isEmpty()) {
      throw new IllegalArgumentException(at + ": type must not be empty when given");
    }
    for (String o : m.options()) {
      if (o.isEmpty()) {
        throw new IllegalArgumentException(at + ": options must not contain an empty entry");
      }
    }
  }

  private static void checkHook(String where, Hook h) {
    String at = where + " (" + h.hookName() + " " + h.path() + ")";
    checkAbsolute(at, "path", h.path());
    List<String> env = h.env();
    for (int i = 0; i < env.size(); i++) {
      checkEnv(at + ": env[" + i + "]", env.get(i));
    }
    h.timeout()
        .ifPresent(
            t -> {
              if (t <= 0) {
                throw new IllegalArgumentException(at + ": timeout " + t + " must be positive");
              }
            });
  }

  private static void checkAbsolute(String at, String field, String path) {
    if (path.isEmpty() || path.charAt(0) != '/') {
      throw new IllegalArgumentException(
          at + ": " + field + " \"" + path + "\" must be an absolute path");
    }
  }

  private static void checkNotNegative(String at, String field, int value) {
    if (value < 0) {
      throw new IllegalArgumentException(at + ": " + field + " " + value + " must not be negative");
    }
  }
}
