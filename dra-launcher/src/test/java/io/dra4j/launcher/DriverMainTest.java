package io.dra4j.launcher;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.dra4j.api.provider.DeviceProvider;
import java.io.ByteArrayOutputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.jar.JarEntry;
import java.util.jar.JarOutputStream;
import javax.tools.JavaCompiler;
import javax.tools.ToolProvider;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class DriverMainTest {
  @TempDir Path dir;

  /** A vendor's provider, compiled and packaged into its own jar as a vendor would ship it. */
  private Path vendorJar(String className, String providerName) throws Exception {
    Path src = dir.resolve("src/com/vendor/" + className + ".java");
    Files.createDirectories(src.getParent());
    Files.writeString(
        src,
        String.join(
            "\n",
            "package com.vendor;",
            "import io.dra4j.api.claim.*;",
            "import io.dra4j.api.provider.*;",
            "public class " + className + " implements DeviceProvider {",
            "  @Override public String name() { return \"" + providerName + "\"; }",
            "  @Override public Inventory discover(ProviderContext c) { return Inventory.empty(); }",
            "  @Override public PrepareResult prepare(ClaimAllocation a) {",
            "    return PrepareResult.of(java.util.List.of()); }",
            "  @Override public void unprepare(PreparedClaim c) {}",
            "}"));
    Path classes = Files.createDirectories(dir.resolve("classes-" + className));
    JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
    int rc =
        javac.run(
            null,
            null,
            null,
            "-d",
            classes.toString(),
            "-cp",
            System.getProperty("java.class.path"),
            src.toString());
    assertThat(rc).isZero();
    Path jar = dir.resolve(className + ".jar");
    try (JarOutputStream out = new JarOutputStream(Files.newOutputStream(jar))) {
      out.putNextEntry(new JarEntry("com/vendor/" + className + ".class"));
      out.write(Files.readAllBytes(classes.resolve("com/vendor/" + className + ".class")));
      out.putNextEntry(new JarEntry("META-INF/services/" + DeviceProvider.class.getName()));
      out.write(("com.vendor." + className + "\n").getBytes(StandardCharsets.UTF_8));
    }
    return jar;
  }

  private static <T> T withClassPath(List<Path> jars, java.util.concurrent.Callable<T> body)
      throws Exception {
    URL[] urls = new URL[jars.size()];
    for (int i = 0; i < urls.length; i++) {
      urls[i] = jars.get(i).toUri().toURL();
    }
    Thread t = Thread.currentThread();
    ClassLoader previous = t.getContextClassLoader();
    try (URLClassLoader loader = new URLClassLoader(urls, previous)) {
      t.setContextClassLoader(loader);
      return body.call();
    } finally {
      t.setContextClassLoader(previous);
    }
  }

  @Test
  void findsTheProviderOfASeparateJarThroughServiceLoader() throws Exception {
    Path jar = vendorJar("AcmeProvider", "acme");
    DeviceProvider p = withClassPath(List.of(jar), () -> DriverMain.findProvider(Optional.empty()));
    assertThat(p.name()).isEqualTo("acme");
    assertThat(p.getClass().getName()).isEqualTo("com.vendor.AcmeProvider");
  }

  @Test
  void choosesByNameAndExplainsAmbiguityAndAbsence() throws Exception {
    List<Path> jars =
        List.of(vendorJar("AcmeProvider", "acme"), vendorJar("OtherProvider", "other"));
    assertThat(withClassPath(jars, () -> DriverMain.findProvider(Optional.of("other"))).name())
        .isEqualTo("other");
    assertThatThrownBy(() -> withClassPath(jars, () -> DriverMain.findProvider(Optional.empty())))
        .hasMessageContaining("several DeviceProviders on the class path (acme, other)")
        .hasMessageContaining("--provider");
    assertThatThrownBy(
            () -> withClassPath(jars, () -> DriverMain.findProvider(Optional.of("nvidia"))))
        .hasMessageContaining("no DeviceProvider named \"nvidia\"")
        .hasMessageContaining("acme, other");
    assertThatThrownBy(() -> DriverMain.findProvider(Optional.empty()))
        .hasMessageContaining("META-INF/services/io.dra4j.api.provider.DeviceProvider");
  }

  @Test
  void usageErrorsExitWithTwoAndNameTheFlag() {
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    int rc =
        DriverMain.run(
            List.of("--health-port", "x"),
            Map.of(),
            Map.of("NODE_NAME", "n", "DRIVER_NAME", "gpu.example.com"),
            System.out,
            new PrintStream(err, true, StandardCharsets.UTF_8));
    assertThat(rc).isEqualTo(2);
    assertThat(err.toString(StandardCharsets.UTF_8))
        .contains("flag --health-port \"x\" must be an integer");
    rc =
        DriverMain.run(
            List.of(),
            Map.of(),
            Map.of(),
            System.out,
            new PrintStream(OutputStream.nullOutputStream()));
    assertThat(rc).isEqualTo(2);
  }

  @Test
  void configurationErrorsBeforeStartAreReportedNotThrown() throws Exception {
    // No KUBERNETES_SERVICE_HOST here: in-cluster configuration is impossible. The message must
    // say so on stderr with status 2, not end in a stack trace.
    Path jar = vendorJar("AcmeProvider", "acme");
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    int rc =
        withClassPath(
            List.of(jar),
            () ->
                DriverMain.run(
                    List.of("--node-name", "n", "--driver-name", "acme.example.com"),
                    Map.of(),
                    Map.of(),
                    System.out,
                    new PrintStream(err, true, StandardCharsets.UTF_8)));
    assertThat(rc).isEqualTo(2);
    assertThat(err.toString(StandardCharsets.UTF_8)).startsWith("error: ");
  }
}
