package io.dra4j.testkit.apiserver;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The shaded {@code dra-testkit-apiserver.jar} as the README runs it ({@code java -jar}): every
 * class it needs is in the jar.
 */
class StandaloneJarIT {

  @Test
  void theShadedJarRunsOnItsOwn(@TempDir Path dir) throws Exception {
    Path jar = Path.of(System.getProperty("dra4j.apiserverJar"));
    assertThat(jar).isRegularFile();
    assertThat(Files.size(jar)).isPositive();
    StandaloneServerTest.check(dir, List.of("-jar", jar.toString()));
  }
}
