package io.dra4j.examples.hostdev;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.function.Function;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Go's io/fs.Glob semantics on a fake /dev seen through a view. */
class GlobTest {
  @TempDir Path dev;
  Function<String, Path> view;

  @BeforeEach
  void setUp() throws Exception {
    for (String f :
        List.of(
            "ttyUSB1",
            "ttyUSB0",
            "ttyUSB10",
            "ttyACM0",
            ".hidden",
            "a*b",
            "snd/pcmC0D0c",
            "snd/pcmC1D0c",
            "snd/controlC0")) {
      Path p = dev.resolve(f);
      Files.createDirectories(p.getParent());
      Files.createFile(p);
    }
    view = host -> host.equals("/dev") ? dev : dev.resolve(host.substring("/dev/".length()));
  }

  List<String> glob(String pattern) throws Exception {
    return Glob.expand(pattern, view);
  }

  @Test
  void starQuestionMarkAndClassesMatchOneElementSorted() throws Exception {
    assertThat(glob("/dev/ttyUSB*"))
        .containsExactly("/dev/ttyUSB0", "/dev/ttyUSB1", "/dev/ttyUSB10");
    assertThat(glob("/dev/ttyUSB?")).containsExactly("/dev/ttyUSB0", "/dev/ttyUSB1");
    assertThat(glob("/dev/tty[A-Z][A-Z][A-Z]0")).containsExactly("/dev/ttyACM0", "/dev/ttyUSB0");
    assertThat(glob("/dev/ttyUSB[^0]")).containsExactly("/dev/ttyUSB1");
    assertThat(glob("/dev/*/pcmC*D0c")).containsExactly("/dev/snd/pcmC0D0c", "/dev/snd/pcmC1D0c");
    // Unlike a shell, Go's * matches a leading dot; and * never crosses a /.
    assertThat(glob("/dev/.h*")).containsExactly("/dev/.hidden");
    assertThat(glob("/dev/*C0")).isEmpty();
    // A backslash quotes: the file named a*b, not a pattern.
    assertThat(glob("/dev/a\\*b")).containsExactly("/dev/a*b");
  }

  @Test
  void aLiteralPathMatchesItselfWhenItExists() throws Exception {
    assertThat(glob("/dev/ttyACM0")).containsExactly("/dev/ttyACM0");
    assertThat(glob("/dev/ttyACM9")).isEmpty();
    assertThat(Glob.isPattern("/dev/fuse")).isFalse();
    assertThat(Glob.isPattern("/dev/tty[0-9]")).isTrue();
  }

  @Test
  void badPatternsAreRefused() {
    assertThatThrownBy(() -> Glob.check("/dev/tty[")).hasMessageContaining("unclosed [");
    assertThatThrownBy(() -> Glob.check("/dev/tty\\")).hasMessageContaining("backslash");
  }
}
