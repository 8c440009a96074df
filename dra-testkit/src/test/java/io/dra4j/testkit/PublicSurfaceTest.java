package io.dra4j.testkit;

import static org.assertj.core.api.Assertions.assertThat;

import io.dra4j.runtime.testsupport.PublicSurface;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/**
 * The test kit may build on the runtime's internals (its allocator uses the runtime's CEL and slice
 * validation, so the two decide alike), but its users see exported types only: no public signature
 * of the test kit names a type under {@code io.dra4j.runtime.internal}.
 */
class PublicSurfaceTest {
  @Test
  void noPublicSignatureMentionsARuntimeInternalType() {
    PublicSurface surface = PublicSurface.of(Path.of("target/classes"));
    System.out.printf(
        "dra-testkit public types, nested included: %d%n",
        surface.api(PublicSurface.RUNTIME_INTERNAL).size());
    assertThat(surface.leaks(PublicSurface.RUNTIME_INTERNAL)).isEmpty();
  }
}
