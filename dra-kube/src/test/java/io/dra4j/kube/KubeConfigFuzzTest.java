package io.dra4j.kube;

import static org.assertj.core.api.Assertions.assertThat;

import com.code_intelligence.jazzer.junit.FuzzTest;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;
import org.junit.jupiter.api.AfterAll;

/**
 * Kubeconfig files: any content either gives a configuration or an IllegalArgumentException naming
 * the file, never another exception.
 */
class KubeConfigFuzzTest {
  private static Path file;

  @AfterAll
  static void cleanUp() throws Exception {
    if (file != null) {
      Files.deleteIfExists(file);
    }
  }

  @FuzzTest
  void parse(byte[] input) throws Exception {
    if (file == null) {
      file = Files.createTempFile("fuzz-kubeconfig", ".yaml");
    }
    Files.write(file, input);
    try {
      KubeConfig config = KubeConfig.fromKubeconfig(file, Optional.empty(), false);
      assertThat(config.server()).isNotNull();
    } catch (IllegalArgumentException e) {
      assertThat(e.getMessage()).isNotBlank();
    }
  }
}
