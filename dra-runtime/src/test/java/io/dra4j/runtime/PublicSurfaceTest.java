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
 * The core exports what vendors and the test kit's users need (the driver, what it reports, CDI,
 * the extended-resource guard, errors, atomic files); everything else lives under {@code
 * io.dra4j.runtime.internal} or is generated from the kubelet's .proto files, which the module
 * descriptor exports only to dra4j's own modules and javadoc leaves out.
 */
class PublicSurfaceTest {
  private static final Path CLASSES = Path.of("target/classes");
  private static final Path INTERNAL_SOURCES = Path.of("src/main/java/io/dra4j/runtime/internal");

  @Test
  void noExportedSignatureMentionsAnInternalType() {
    PublicSurface surface = PublicSurface.of(CLASSES);
    List<Class<?>> api = surface.api(PublicSurface.INTERNAL);
    System.out.printf(
        "dra-runtime public types, nested included: %d API, %d internal or generated from the"
            + " kubelet's .proto files%n",
        api.size(), surface.notApi(PublicSurface.INTERNAL).size());
    assertThat(api).extracting(Class::getName).contains("io.dra4j.runtime.DraDriver");
    assertThat(surface.leaks(PublicSurface.INTERNAL)).isEmpty();
  }

  @Test
  void theDescriptorExportsTheApiToEveryoneAndTheRestToDra4jOnly() {
    PublicSurface.Exports exports = PublicSurface.exports(CLASSES);
    assertThat(exports.module()).isEqualTo("io.dra4j.runtime");
    assertThat(exports.exported()).isEqualTo(PublicSurface.of(CLASSES).apiPackages());
    assertThat(exports.qualified()).allMatch(PublicSurface::isInternal);
  }

  @Test
  void theScanTheExamplesRelyOnFindsTheRuntimesOwnUsesOfItsInternals() {
    // The examples assert that the scan finds nothing in their classes; here it must find
    // DraDriver.
    assertThat(PublicSurface.usesOfInternals(CLASSES))
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
  void javadocLeavesOutWhatIsExportedToDra4jOnly() throws IOException {
    assertThat(Files.readString(Path.of("../pom.xml")))
        .contains(
            "<excludePackageNames>*.internal:*.internal.*:io.dra4j.cel:io.dra4j.validation:io.dra4j.proto.*"
                + "</excludePackageNames>");
  }
}
