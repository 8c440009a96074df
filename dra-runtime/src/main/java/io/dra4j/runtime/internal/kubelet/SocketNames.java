package io.dra4j.runtime.internal.kubelet;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Arrays;
import java.util.Base64;
import java.util.List;
import java.util.Optional;

/**
 * Where the kubelet plugin sockets live and what they are called. Pure functions.
 *
 * <p>Without a pod UID: {@code <registrar dir>/<driver>-reg.sock} and {@code <plugin data
 * dir>/dra.sock}. With a pod UID (rolling update: an old and a new driver pod run side by side,
 * each with its own sockets): {@code dra-<podUID>.sock} and the first registration socket name of
 * {@link #rollingUpdateRegistrarSocketFile} whose path fits.
 */
public final class SocketNames {

  /**
   * Longest socket path dra4j binds, in bytes. Linux {@code sun_path} holds 108 bytes including the
   * terminating NUL, and Netty needs room for it, so 107 (the Go helper allows 108).
   */
  public static final int MAX_SOCKET_PATH_BYTES = 107;

  /** The kubelet's default registration directory, as text (for annotations). */
  public static final String DEFAULT_REGISTRAR_PATH = "/var/lib/kubelet/plugins_registry";

  /** The kubelet's default registration directory. */
  public static final Path DEFAULT_REGISTRAR_DIRECTORY = Path.of(DEFAULT_REGISTRAR_PATH);

  /** The kubelet's default parent of plugin data directories. */
  public static final Path DEFAULT_PLUGINS_DIRECTORY = Path.of("/var/lib/kubelet/plugins");

  private static final Base64.Encoder URL_NO_PADDING = Base64.getUrlEncoder().withoutPadding();

  private SocketNames() {}

  /** {@code /var/lib/kubelet/plugins/<driver>}. */
  public static Path defaultPluginDataDirectory(String driverName) {
    return DEFAULT_PLUGINS_DIRECTORY.resolve(driverName);
  }

  /** The registration socket: {@code <driver>-reg.sock}, or the rolling-update name. */
  public static Path registrationSocket(
      Path registrarDir, String driverName, Optional<String> podUid) {
    Path dir = clean(registrarDir);
    return dir.resolve(
        podUid
            .map(uid -> rollingUpdateRegistrarSocketFile(dir, driverName, uid))
            .orElse(driverName + "-reg.sock"));
  }

  /** The DRA service socket: {@code dra.sock}, or {@code dra-<podUID>.sock}. */
  public static Path draSocket(Path pluginDataDir, Optional<String> podUid) {
    return clean(pluginDataDir)
        .resolve(podUid.map(uid -> "dra-" + uid + ".sock").orElse("dra.sock"));
  }

  /**
   * The registration socket file name for one instance of a rolling update (the rules of the
   * Kubernetes 1.37 helper, with dra4j's 107-byte limit). The first candidate whose full path fits
   * in {@link #MAX_SOCKET_PATH_BYTES}:
   *
   * <ol>
   *   <li>{@code <driver>-<podUID>-reg.sock}
   *   <li>{@code <driver>-<H1>-reg.sock}, H1 = unpadded URL-safe base64 of the first 8 bytes of
   *       SHA-256(podUID) (11 characters)
   *   <li>{@code dra-<H2>-reg.sock}, H2 = unpadded URL-safe base64 of the first 16 bytes of
   *       SHA-256(driver + NUL + podUID) (22 characters)
   * </ol>
   *
   * <p>The reference writes the truncation as {@code base64url(SHA-256(x))[:8 bytes]}. We read it
   * as "the first 8 bytes of the digest, then encoded", not "the first 8 characters of the
   * encoding": it is a byte count, and it reproduces the path lengths the upstream helper yields
   * (for example an 84-byte path for a 29-character driver name in the default directory).
   *
   * <p>When no candidate fits, the last one is returned; starting a server on it then fails with a
   * clear message.
   *
   * @param registrarDir the registration directory (made absolute and normalized first)
   */
  public static String rollingUpdateRegistrarSocketFile(
      Path registrarDir, String driverName, String podUid) {
    Path dir = clean(registrarDir);
    List<String> candidates =
        List.of(
            driverName + "-" + podUid + "-reg.sock",
            driverName + "-" + hash(podUid, 8) + "-reg.sock",
            "dra-" + hash(driverName + "\0" + podUid, 16) + "-reg.sock");
    for (String candidate : candidates) {
      if (pathBytes(dir.resolve(candidate)) <= MAX_SOCKET_PATH_BYTES) {
        return candidate;
      }
    }
    return candidates.get(candidates.size() - 1);
  }

  /** Length of the absolute path in bytes, as the kernel sees it. */
  public static int pathBytes(Path path) {
    return path.toString().getBytes(StandardCharsets.UTF_8).length;
  }

  /**
   * Fails when {@code socket} is longer than {@link #MAX_SOCKET_PATH_BYTES}.
   *
   * @param what which socket, for the message
   */
  public static void checkLength(String what, Path socket) {
    int bytes = pathBytes(socket);
    if (bytes > MAX_SOCKET_PATH_BYTES) {
      throw new IllegalArgumentException(
          what
              + " path "
              + socket
              + " is "
              + bytes
              + " bytes; a Unix socket path may have at most "
              + MAX_SOCKET_PATH_BYTES
              + " bytes (108 including the terminating NUL). Use a shorter directory or driver"
              + " name.");
    }
  }

  static Path clean(Path dir) {
    return dir.toAbsolutePath().normalize();
  }

  private static String hash(String input, int bytes) {
    try {
      byte[] digest =
          MessageDigest.getInstance("SHA-256").digest(input.getBytes(StandardCharsets.UTF_8));
      return URL_NO_PADDING.encodeToString(Arrays.copyOf(digest, bytes));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("SHA-256 is missing from this JVM", e);
    }
  }
}
