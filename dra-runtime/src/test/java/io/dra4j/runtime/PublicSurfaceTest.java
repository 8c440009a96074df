package io.dra4j.runtime;

import static org.assertj.core.api.Assertions.assertThat;

import io.dra4j.runtime.testsupport.PublicSurface;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The runtime exports what vendors and the test kit's users need (the driver, its options,
 * launcher, metrics and reports, the Kubernetes client, CDI, the extended-resource bridge, errors,
 * logging, atomic files); everything else lives under {@code io.dra4j.runtime.internal}, which
 * javadoc leaves out and every package-info marks as not API.
 */
class PublicSurfaceTest {
  private static final Path CLASSES = Path.of("target/classes");
  private static final Path INTERNAL_SOURCES = Path.of("src/main/java/io/dra4j/runtime/internal");

  @Test
  void noExportedSignatureMentionsAnInternalType() {
    PublicSurface surface = PublicSurface.of(CLASSES);
    List<Class<?>> api = surface.api(PublicSurface.RUNTIME_INTERNAL);
    long generated = api.stream().filter(c -> c.getName().startsWith("io.dra4j.proto.")).count();
    System.out.printf(
        "dra-runtime public types, nested included: %d API, %d generated from the kubelet's .proto"
            + " files, %d internal%n",
        api.size() - generated, generated, surface.notApi(PublicSurface.RUNTIME_INTERNAL).size());
    assertThat(api).extracting(Class::getName).contains("io.dra4j.runtime.DraDriver");
    assertThat(surface.leaks(PublicSurface.RUNTIME_INTERNAL)).isEmpty();
  }

  @Test
  void theScanTheExamplesRelyOnFindsTheRuntimesOwnUsesOfItsInternals() {
    // The examples assert that the scan finds nothing in their classes; here it must find
    // DraDriver.
    assertThat(PublicSurface.usesOfRuntimeInternals(CLASSES))
        .contains("io/dra4j/runtime/DraDriver.class")
        .doesNotContain("io/dra4j/runtime/report/ClaimStats.class");
  }

  @Test
  void everyInternalPackageSaysItIsNotApi() throws IOException {
    List<Path> infos;
    try (Stream<Path> files = Files.walk(INTERNAL_SOURCES)) {
      infos = files.filter(Files::isDirectory).map(d -> d.resolve("package-info.java")).toList();
    }
    assertThat(infos).hasSizeGreaterThan(1);
    for (Path info : infos) {
      assertThat(info).exists().content().contains("Not API");
    }
  }

  @Test
  void javadocLeavesTheInternalPackagesOut() throws IOException {
    assertThat(Files.readString(Path.of("../pom.xml")))
        .contains("<excludePackageNames>")
        .contains(":io.dra4j.runtime.internal:io.dra4j.runtime.internal.*<");
  }
}
