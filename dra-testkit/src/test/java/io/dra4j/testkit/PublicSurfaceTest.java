package io.dra4j.testkit;

import static org.assertj.core.api.Assertions.assertThat;

import io.dra4j.runtime.testsupport.PublicSurface;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/**
 * The test kit may build on dra4j's internals (its allocator uses dra-cel and its slice checks
 * dra-validation, so they decide as the core does), but its users see exported types only: no
 * public signature of the test kit names an internal type, and its descriptor exports every package
 * it has.
 */
class PublicSurfaceTest {
  private static final Path CLASSES = Path.of("target/classes");

  @Test
  void noPublicSignatureMentionsAnInternalType() {
    PublicSurface surface = PublicSurface.of(CLASSES);
    System.out.printf(
        "dra-testkit public types, nested included: %d%n",
        surface.api(PublicSurface.INTERNAL).size());
    assertThat(surface.leaks(PublicSurface.INTERNAL)).isEmpty();
    assertThat(PublicSurface.exports(CLASSES).exported()).isEqualTo(surface.apiPackages());
  }
}
