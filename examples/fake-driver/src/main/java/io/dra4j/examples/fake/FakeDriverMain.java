package io.dra4j.examples.fake;

import io.dra4j.launcher.Launcher;
import java.io.PrintStream;
import java.util.List;
import java.util.Map;

/**
 * {@code java -jar fake-dra-driver.jar run|dev|demo|train|deviceclass|doctor ...}: the fake DRA
 * driver, the same driver on this machine against the test kit, the no-cluster demo, the image
 * build's training run, a DeviceClass generator, and the migration doctor.
 */
public final class FakeDriverMain {
  /** The driver name when neither --driver-name nor DRIVER_NAME says otherwise. */
  static final String DEFAULT_DRIVER_NAME = "gpu.example.com";

  private FakeDriverMain() {}

  public static void main(String[] args) {
    launcher().main(args);
  }

  static Launcher launcher() {
    // dev, train (dra-dev) and doctor (dra-doctor) come from the class path: this example bundles
    // them for its demo; a production driver jar leaves them out.
    return Launcher.named("fake-dra-driver.jar")
        .defaults(Map.of("provider", "fake", "driver-name", DEFAULT_DRIVER_NAME))
        .command(
            "demo",
            "the whole Kubernetes 1.37 story on this machine, no cluster needed (--keep leaves"
                + " everything running)",
            (args, defaults, env, out, err) -> FakeDemo.run(args, out, err));
  }

  static int run(List<String> args, Map<String, String> env, PrintStream out, PrintStream err) {
    return launcher().run(args, env, out, err);
  }
}
