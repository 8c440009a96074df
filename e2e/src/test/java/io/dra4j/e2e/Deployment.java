package io.dra4j.e2e;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The fake driver's deployment objects from {@code examples/fake-driver/deploy/}, applied as a
 * platform engineer applies them (the README's {@code kubectl create namespace dra4j-system}, then
 * the generated files): ServiceAccount, RBAC and the ValidatingAdmissionPolicy that confines the
 * driver to its own node's slices. The DaemonSet is not applied (no kubelet runs pods here; the
 * tests start the driver process themselves) and the DeviceClass is applied by the tests that need
 * it.
 */
final class Deployment {
  static final String NAMESPACE = "dra4j-system";
  static final String SERVICE_ACCOUNT = "fake-dra-driver";
  static final List<String> FILES =
      List.of("serviceaccount.yaml", "rbac.yaml", "validatingadmissionpolicy.yaml");

  private static final Set<String> APPLIED = ConcurrentHashMap.newKeySet();

  private Deployment() {}

  static Path dir() {
    return Path.of(System.getProperty("dra4j.deploy", "../examples/fake-driver/deploy"));
  }

  static String read(String file) {
    try {
      return Files.readString(dir().resolve(file));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  static void ensureApplied(Cluster cluster) {
    ensureApplied(cluster, dir());
  }

  /** The same files of another example's {@code deploy/} (its own ServiceAccount and policy). */
  static synchronized void ensureApplied(Cluster cluster, Path deploy) {
    if (APPLIED.add(cluster.dir() + " " + deploy.toAbsolutePath().normalize())) {
      cluster.apply(Resources.namespace(NAMESPACE));
      for (String f : FILES) {
        try {
          cluster.apply(Files.readString(deploy.resolve(f)));
        } catch (IOException e) {
          throw new UncheckedIOException(e);
        }
      }
    }
  }
}
