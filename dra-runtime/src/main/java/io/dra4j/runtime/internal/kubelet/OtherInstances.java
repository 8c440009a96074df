package io.dra4j.runtime.internal.kubelet;

import io.dra4j.kube.internal.Failures;
import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Whether another instance of a driver is registered with the kubelet and answering: in a rolling
 * update the old pod's registration socket sits next to the new one's (see {@link SocketNames}).
 * The new instance may then take its time to warm up before it registers, because the old one
 * serves meanwhile; after a crash or on a fresh node nobody else serves, and the kubelet's calls
 * wait for this instance's registration.
 *
 * <p>Only the JDK's own Unix socket channel is used, not a gRPC client: this runs in every start,
 * before anything else has loaded Netty's client side, and a connect that the other end accepts is
 * what "answering" means here. A socket file left behind by a killed process refuses the connect.
 */
public final class OtherInstances {
  private static final Logger LOG = LoggerFactory.getLogger(OtherInstances.class);

  private OtherInstances() {}

  /**
   * The first registration socket in {@code registrarDir} that may be this driver's and accepts a
   * connection. Candidates are {@code <driver>-reg.sock}, {@code <driver>-<suffix>-reg.sock} and
   * the hashed {@code dra-<hash>-reg.sock}, whose driver the name does not tell: a live socket of
   * another driver under that form only costs a warm-up before registering.
   */
  public static Optional<Path> answering(Path registrarDir, String driverName) {
    Path dir = SocketNames.clean(registrarDir);
    if (!Files.isDirectory(dir)) {
      return Optional.empty();
    }
    try (DirectoryStream<Path> entries = Files.newDirectoryStream(dir, "*-reg.sock")) {
      for (Path p : entries) {
        String name = p.getFileName().toString();
        boolean candidate = name.startsWith(driverName + "-") || name.startsWith("dra-");
        if (candidate && isSocket(p) && accepts(p)) {
          return Optional.of(p);
        }
      }
    } catch (IOException e) {
      // An unreadable directory: nothing known to answer.
      LOG.info("cannot list {}: {}", dir, Failures.describe(e));
    }
    return Optional.empty();
  }

  private static boolean isSocket(Path p) {
    try {
      BasicFileAttributes a = Files.readAttributes(p, BasicFileAttributes.class);
      return a.isOther();
    } catch (IOException e) {
      return false;
    }
  }

  private static boolean accepts(Path socket) {
    try {
      UnixSockets.connect(socket);
      return true;
    } catch (IOException | RuntimeException e) {
      LOG.info("{} does not answer ({}): not another instance", socket, Failures.describe(e));
      return false;
    }
  }
}
