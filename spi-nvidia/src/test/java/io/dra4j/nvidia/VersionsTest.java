package io.dra4j.nvidia;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class VersionsTest {

  @Test
  void driverVersionsBecomeStrictSemver() {
    assertThat(Versions.driverVersion("550.54.15")).isEqualTo("550.54.15");
    assertThat(Versions.driverVersion("550.54")).isEqualTo("550.54.0");
    assertThat(Versions.driverVersion("550")).isEqualTo("550.0.0");
    assertThat(Versions.driverVersion("535.104.05")).isEqualTo("535.104.5");
    assertThat(Versions.driverVersion(" 470.57.02\n")).isEqualTo("470.57.2");
    assertThat(Versions.driverVersion("00550.00.00")).isEqualTo("550.0.0");
  }

  @Test
  void malformedDriverVersionsAreRejectedWithTheValue() {
    for (String bad :
        new String[] {"", "550.54.15.1", "550.54.15-beta", "r550", "550..1", "550."}) {
      assertThatThrownBy(() -> Versions.driverVersion(bad))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("\"" + bad + "\"");
    }
  }

  @Test
  void cudaVersionsDecodeNvmlsEncoding() {
    assertThat(Versions.cudaVersion(12040)).isEqualTo("12.4.0");
    assertThat(Versions.cudaVersion(11080)).isEqualTo("11.8.0");
    assertThat(Versions.cudaVersion(13000)).isEqualTo("13.0.0");
    assertThatThrownBy(() -> Versions.cudaVersion(0)).hasMessageContaining("0");
    assertThatThrownBy(() -> Versions.cudaVersion(-1)).isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void computeCapabilities() {
    assertThat(Versions.computeCapability(9, 0)).isEqualTo("9.0.0");
    assertThat(Versions.computeCapability(8, 6)).isEqualTo("8.6.0");
    assertThatThrownBy(() -> Versions.computeCapability(-1, 0))
        .isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void theSemverPatternIsStrict() {
    assertThat(Versions.SEMVER.matcher("1.2.3").matches()).isTrue();
    assertThat(Versions.SEMVER.matcher("1.2.3-rc.1+build.5").matches()).isTrue();
    assertThat(Versions.SEMVER.matcher("01.2.3").matches()).isFalse();
    assertThat(Versions.SEMVER.matcher("1.2").matches()).isFalse();
    assertThat(Versions.SEMVER.matcher("1.2.3-01").matches()).isFalse();
  }
}
