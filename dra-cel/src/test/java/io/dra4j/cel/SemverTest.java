package io.dra4j.cel;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class SemverTest {

  @ParameterizedTest
  @ValueSource(
      strings = {
        "0.0.4",
        "1.2.3",
        "10.20.30",
        "1.1.2-prerelease+meta",
        "1.1.2+meta",
        "1.1.2+meta-valid",
        "1.0.0-alpha",
        "1.0.0-alpha.beta.1",
        "1.0.0-alpha.0valid",
        "1.0.0-rc.1+build.1",
        "2.0.0-rc.1+build.123",
        "1.0.0-alpha-a.b-c-somethinglong+build.1-aef.1-its-okay",
        "1.0.0+0.build.1-rc.10000aaa-kk-0.1",
        "9223372036854775807.0.0",
        "1.0.0-0A.is.legal",
        "1.2.3----RC-SNAPSHOT.12.9.1--.12+788",
      })
  void acceptsValidVersions(String text) {
    assertThat(Semver.isValid(text)).isTrue();
    assertThat(Semver.parse(text).toString()).isEqualTo(text);
  }

  @ParameterizedTest
  @ValueSource(
      strings = {
        "",
        "1",
        "1.2",
        "1.2.3.4",
        "v1.2.3",
        "01.1.1",
        "1.01.1",
        "1.1.01",
        "1.2.3-0123",
        "1.2.3-0123.0123",
        "1.1.2+.123",
        "+invalid",
        "-invalid",
        "1.2.3-",
        "1.2.3+",
        "1.2.3-alpha..1",
        "1.2.3-alpha_beta",
        "1.2.3+meta+meta",
        "alpha.beta.1",
        "1.2.-3",
        " 1.2.3",
        "9223372036854775808.0.0",
        "1.2.3-é",
      })
  void rejectsInvalidVersions(String text) {
    assertThat(Semver.isValid(text)).isFalse();
    assertThat(Semver.tryParse(text)).isEmpty();
    assertThatThrownBy(() -> Semver.parse(text))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("\"" + text + "\"");
  }

  @Test
  void precedenceFollowsTheSpecification() {
    List<String> ordered =
        List.of(
            "1.0.0-0",
            "1.0.0-2",
            "1.0.0-10",
            "1.0.0-alpha",
            "1.0.0-alpha.1",
            "1.0.0-alpha.beta",
            "1.0.0-beta",
            "1.0.0-beta.2",
            "1.0.0-beta.11",
            "1.0.0-rc.1",
            "1.0.0",
            "1.0.1",
            "1.1.0",
            "1.10.0",
            "2.0.0",
            "10.0.0");
    List<Semver> shuffled = new ArrayList<>();
    for (String s : ordered) {
      shuffled.add(Semver.parse(s));
    }
    Collections.shuffle(shuffled, new Random(42));
    Collections.sort(shuffled);
    assertThat(shuffled).extracting(Semver::toString).containsExactlyElementsOf(ordered);
  }

  @Test
  void hugeNumericPreReleaseIdentifiersCompareNumerically() {
    assertThat(Semver.parse("1.0.0-99999999999999999999999"))
        .isGreaterThan(Semver.parse("1.0.0-9999999999999999999999"));
  }

  @Test
  void buildMetadataIsKeptButIgnoredForPrecedenceAndEquality() {
    Semver a = Semver.parse("1.0.0+a");
    Semver b = Semver.parse("1.0.0+b");
    assertThat(a).isEqualTo(b).hasSameHashCodeAs(b);
    assertThat(a.compareTo(b)).isZero();
    assertThat(a.build()).containsExactly("a");
    assertThat(a.toString()).isEqualTo("1.0.0+a");
    assertThat(Semver.parse("1.0.0-rc.1")).isNotEqualTo(Semver.parse("1.0.0"));
  }

  @Test
  void componentsAndConstructor() {
    Semver v = Semver.parse("3.4.5-rc.1+b7");
    assertThat(v.major()).isEqualTo(3);
    assertThat(v.minor()).isEqualTo(4);
    assertThat(v.patch()).isEqualTo(5);
    assertThat(v.preRelease()).containsExactly("rc", "1");
    assertThat(v.isPreRelease()).isTrue();
    assertThat(Semver.of(1, 2, 3)).isEqualTo(Semver.parse("1.2.3"));
    assertThatThrownBy(() -> new Semver(-1, 0, 0, List.of(), List.of()))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> new Semver(1, 0, 0, List.of("01"), List.of()))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("leading zeros");
  }

  @Test
  void normalizedParsingMatchesKubernetesSemverWithNormalize() {
    assertThat(Semver.parseNormalized("v1")).isEqualTo(Semver.of(1, 0, 0));
    assertThat(Semver.parseNormalized("v1.2")).isEqualTo(Semver.of(1, 2, 0));
    assertThat(Semver.parseNormalized("01.002.0003")).isEqualTo(Semver.of(1, 2, 3));
    assertThat(Semver.parseNormalized("1.2-rc.1").toString()).isEqualTo("1.2.0-rc.1");
    assertThat(Semver.parseNormalized("1.0.0")).isEqualTo(Semver.of(1, 0, 0));
    assertThat(Semver.tryParseNormalized("v")).isEmpty();
    assertThat(Semver.tryParseNormalized("1.2.3.4")).isEmpty();
    assertThatThrownBy(() -> Semver.parseNormalized("x1"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("x1");
  }
}
