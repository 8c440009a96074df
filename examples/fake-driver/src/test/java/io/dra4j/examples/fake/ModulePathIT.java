package io.dra4j.examples.fake;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.jar.JarFile;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * dra4j's module descriptors hold at run time, not only for javac: the launcher, the core, the
 * client, the test kit, the dev and doctor commands and the fake provider, as named modules on the
 * module path, run the whole dev loop (the test kit's API server and kubelet simulator, the driver,
 * one claim prepared and its CDI spec written). The tests themselves run on the class path.
 *
 * <p>A jar with no module name of its own (no module-info.class, no Automatic-Module-Name) stays on
 * the class path: dev.cel's jars split packages among themselves and cannot be modules, so
 * io.dra4j.cel reads the class path ({@code --add-reads io.dra4j.cel=ALL-UNNAMED}).
 */
class ModulePathIT {
  @TempDir Path dir;

  @Test
  void theDevLoopRunsWithEveryDra4jModuleOnTheModulePath() throws Exception {
    List<String> modulePath = new ArrayList<>();
    List<String> classPath = new ArrayList<>();
    for (String entry :
        Files.readString(Path.of(System.getProperty("dra4j.runtimeClasspath")))
            .strip()
            .split(File.pathSeparator)) {
      (hasModuleName(Path.of(entry)) ? modulePath : classPath).add(entry);
    }
    assertThat(modulePath).anyMatch(e -> e.contains("dra-launcher"));
    assertThat(classPath).anyMatch(e -> e.contains("dev/cel/"));

    Path log = dir.resolve("dev.log");
    Process p =
        new ProcessBuilder(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "--module-path",
                String.join(File.pathSeparator, modulePath),
                "--class-path",
                String.join(File.pathSeparator, classPath),
                "--add-reads",
                "io.dra4j.cel=ALL-UNNAMED",
                "--add-modules",
                "ALL-MODULE-PATH",
                "--module",
                "io.dra4j.launcher/io.dra4j.launcher.DriverMain",
                "dev",
                "--once",
                "--claim",
                "--provider",
                "fake",
                "--driver-name",
                "gpu.example.com")
            .redirectErrorStream(true)
            .redirectOutput(log.toFile())
            .start();
    boolean exited = p.waitFor(120, TimeUnit.SECONDS);
    if (!exited) {
      p.destroyForcibly();
    }
    String out = Files.readString(log);
    assertThat(exited).as(out).isTrue();
    assertThat(p.exitValue()).as(out).isZero();
    assertThat(out)
        .as(out)
        .contains("-> CDI [k8s.gpu.example.com/claim=")
        .contains("unprepared default/dev-claim")
        .doesNotContain("IllegalAccessError")
        .doesNotContain("InaccessibleObjectException");
  }

  /** A jar that is a named module on the module path: explicit, or automatic by its manifest. */
  private static boolean hasModuleName(Path jar) {
    if (Files.isDirectory(jar)) {
      return Files.exists(jar.resolve("module-info.class"));
    }
    try (JarFile f =
        new JarFile(jar.toFile(), false, JarFile.OPEN_READ, JarFile.runtimeVersion())) {
      return f.getEntry("module-info.class") != null
          || f.stream().anyMatch(e -> e.getName().endsWith("/module-info.class"))
          || (f.getManifest() != null
              && f.getManifest().getMainAttributes().getValue("Automatic-Module-Name") != null);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
