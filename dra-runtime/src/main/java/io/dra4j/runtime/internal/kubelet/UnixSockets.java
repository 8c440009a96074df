package io.dra4j.runtime.internal.kubelet;

import java.io.IOException;
import java.net.ConnectException;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.SocketChannel;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.Optional;
import java.util.Set;

/** File-system side of the Unix sockets: directories, stale files, permissions. */
final class UnixSockets {

  /**
   * Socket files: only the owner may connect. The kubelet connects as root, which needs no
   * permission bits; no one else has any business on the driver's sockets.
   */
  static final Set<PosixFilePermission> SOCKET_MODE = PosixFilePermissions.fromString("rw-------");

  private static final int S_IFMT = 0170000;
  private static final int S_IFSOCK = 0140000;

  private UnixSockets() {}

  /**
   * Creates {@code dir} and any missing parents. Only directories created here get a mode set:
   * {@code leafMode} for {@code dir}, {@code parentMode} for the parents (existing directories are
   * never changed).
   */
  static void ensureDirectory(Path dir, String leafMode, String parentMode) throws IOException {
    Deque<Path> missing = new ArrayDeque<>();
    for (Path p = dir; p != null && !Files.isDirectory(p); p = p.getParent()) {
      missing.push(p);
    }
    while (!missing.isEmpty()) {
      Path p = missing.pop();
      String mode = p.equals(dir) ? leafMode : parentMode;
      try {
        Files.createDirectory(p);
      } catch (java.nio.file.FileAlreadyExistsException e) {
        if (!Files.isDirectory(p)) {
          throw new IOException(p + " exists and is not a directory", e);
        }
        continue; // someone else made it meanwhile: leave its mode alone
      }
      // Set explicitly: the mode given to mkdir is filtered by the umask.
      Files.setPosixFilePermissions(p, PosixFilePermissions.fromString(mode));
    }
  }

  /**
   * Makes {@code socket} free for a new listener: nothing there, or a stale socket (removed).
   * Refuses a socket something still listens on (Netty would silently take the path over) and
   * anything that is not a socket.
   */
  static void claimPath(String what, Path socket) throws IOException {
    BasicFileAttributes attrs;
    try {
      attrs = Files.readAttributes(socket, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
    } catch (NoSuchFileException e) {
      return;
    }
    if (!isSocket(socket)) {
      String kind =
          attrs.isDirectory()
              ? "a directory"
              : attrs.isSymbolicLink()
                  ? "a symbolic link"
                  : attrs.isRegularFile() ? "a file" : "not a socket";
      throw new IOException(
          what + " path " + socket + " is " + kind + "; refusing to remove it. Remove it by hand.");
    }
    if (isListening(socket)) {
      throw new IOException(
          what
              + " "
              + socket
              + " is in use: another process is listening on it (is another instance of this"
              + " driver running?). Refusing to take it over.");
    }
    Files.deleteIfExists(socket);
  }

  /** True when {@code path} is a Unix socket (not following links). */
  static boolean isSocket(Path path) throws IOException {
    try {
      int mode = (Integer) Files.getAttribute(path, "unix:mode", LinkOption.NOFOLLOW_LINKS);
      return (mode & S_IFMT) == S_IFSOCK;
    } catch (NoSuchFileException e) {
      return false;
    }
  }

  /**
   * The longest path the JDK's Unix socket channel connects to: one byte short of what dra4j (with
   * Netty) binds, {@link SocketNames#MAX_SOCKET_PATH_BYTES}.
   */
  static final int JDK_MAX_PATH_BYTES = SocketNames.MAX_SOCKET_PATH_BYTES - 1;

  /**
   * Connects to {@code socket} and closes the connection again. A path the JDK refuses (107 bytes:
   * a long directory, driver name and pod UID) is reached through a short link in the temporary
   * directory, removed again; without it a driver could neither tell a stale socket of its own from
   * a live one nor see the old instance of a rolling update.
   *
   * @throws IOException as the connect failed (refused: a file without a listener)
   */
  static void connect(Path socket) throws IOException {
    if (SocketNames.pathBytes(socket) <= JDK_MAX_PATH_BYTES) {
      connectAndClose(socket);
      return;
    }
    Path dir = Files.createTempDirectory("dra4j-probe-");
    Path link = dir.resolve("s");
    try {
      connectAndClose(Files.createSymbolicLink(link, socket));
    } finally {
      Files.deleteIfExists(link);
      Files.deleteIfExists(dir);
    }
  }

  private static void connectAndClose(Path socket) throws IOException {
    try (SocketChannel channel = SocketChannel.open(StandardProtocolFamily.UNIX)) {
      channel.connect(UnixDomainSocketAddress.of(socket));
    }
  }

  /** True when a process accepts connections on {@code socket}. */
  static boolean isListening(Path socket) throws IOException {
    try {
      connect(socket);
      return true;
    } catch (ConnectException e) {
      return false; // ECONNREFUSED: a leftover file without a listener
    } catch (NoSuchFileException e) {
      return false;
    } catch (IOException e) {
      throw new IOException("cannot tell whether " + socket + " is in use: " + e.getMessage(), e);
    }
  }

  /**
   * Sets the socket's mode to 0600 and returns its identity (to delete only our own file later).
   */
  static Optional<Object> restrict(Path socket) throws IOException {
    Files.setPosixFilePermissions(socket, SOCKET_MODE);
    return fileKey(socket);
  }

  static Optional<Object> fileKey(Path path) {
    try {
      return Optional.ofNullable(
          Files.readAttributes(path, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS)
              .fileKey());
    } catch (IOException e) {
      return Optional.empty();
    }
  }

  /** Deletes {@code socket} if it is still the file we bound (same inode). */
  static boolean deleteIfOurs(Path socket, Optional<Object> key) {
    Optional<Object> now = fileKey(socket);
    if (now.isEmpty() || key.isEmpty() || !now.equals(key)) {
      return false;
    }
    try {
      return Files.deleteIfExists(socket);
    } catch (IOException e) {
      return false;
    }
  }
}
