package io.dra4j.examples.fabric;

import static org.assertj.core.api.Assertions.assertThat;

import io.dra4j.runtime.testsupport.PublicSurface;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/** Vendors start from this example: it must build on dra4j's exported API alone. */
class ExportedApiOnlyTest {
  @Test
  void usesNoInternalPackageOfTheRuntime() {
    assertThat(PublicSurface.usesOfInternals(Path.of("target/classes"))).isEmpty();
  }
}
