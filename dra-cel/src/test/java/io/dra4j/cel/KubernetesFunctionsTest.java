package io.dra4j.cel;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.dra4j.api.device.Device;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** Kubernetes' quantity and semver CEL libraries, as bound here. */
class KubernetesFunctionsTest {

  private static final Device DEVICE = Device.builder("dev-0").build();
  private static final CelSelectors SELECTORS = new CelSelectors();

  private static boolean eval(String expression) {
    return SELECTORS.compile(expression).matches("d.example.com", DEVICE);
  }

  @ParameterizedTest
  @ValueSource(
      strings = {
        "isQuantity('1Gi')",
        "isQuantity('500m')",
        "isQuantity('1e3')",
        "!isQuantity('1GB')",
        "!isQuantity('')",
        "quantity('1Gi') == quantity('1024Mi')",
        "quantity('1') == quantity('1000m')",
        "quantity('1k') != quantity('1Ki')",
        "quantity('1Gi').compareTo(quantity('1G')) == 1",
        "quantity('1G').compareTo(quantity('1Gi')) == -1",
        "quantity('2').compareTo(quantity('2000m')) == 0",
        "quantity('1Gi').isGreaterThan(quantity('1G'))",
        "!quantity('1Gi').isGreaterThan(quantity('1Gi'))",
        "quantity('500m').isLessThan(quantity('1'))",
        "quantity('-1').sign() == -1",
        "quantity('0').sign() == 0",
        "quantity('3m').sign() == 1",
        "quantity('1.5Gi').isInteger()",
        "!quantity('1.5').isInteger()",
        "!quantity('10E').isInteger()",
        "quantity('9223372036854775807').isInteger()",
        "!quantity('9223372036854775808').isInteger()",
        "quantity('1.5Gi').asInteger() == 1610612736",
        "quantity('2000m').asInteger() == 2",
        "quantity('1.5').asApproximateFloat() == 1.5",
        "quantity('1Ki').asApproximateFloat() == 1024.0",
        "quantity('1Gi').add(quantity('512Mi')) == quantity('1536Mi')",
        "quantity('1Gi').add(1) == quantity('1073741825')",
        "quantity('1').sub(quantity('500m')) == quantity('500m')",
        "quantity('1Ki').sub(24) == quantity('1000')",
        "quantity('1').sub(2).sign() == -1",
      })
  void quantityLibrary(String expression) {
    assertThat(eval(expression)).as(expression).isTrue();
  }

  @ParameterizedTest
  @ValueSource(
      strings = {
        "isSemver('1.2.3')",
        "isSemver('1.0.0-rc.1+build.5')",
        "!isSemver('v1.2.3')",
        "!isSemver('1.2')",
        "!isSemver('01.2.3')",
        "isSemver('v1.2', true)",
        "!isSemver('v1.2.3.4', true)",
        "semver('v1.02', true) == semver('1.2.0')",
        "semver('1', true).major() == 1",
        "semver('1.2.3').major() == 1",
        "semver('1.2.3').minor() == 2",
        "semver('1.2.3').patch() == 3",
        "semver('1.10.0').isGreaterThan(semver('1.9.0'))",
        "semver('1.0.0-rc.1').isLessThan(semver('1.0.0'))",
        "semver('1.0.0-alpha.10').isGreaterThan(semver('1.0.0-alpha.9'))",
        "semver('1.0.0-alpha').isLessThan(semver('1.0.0-alpha.1'))",
        "semver('1.0.0+a') == semver('1.0.0+b')",
        "semver('1.0.0').compareTo(semver('1.0.0+x')) == 0",
        "semver('2.0.0').compareTo(semver('10.0.0')) == -1",
        "semver('1.2.3').compareTo(semver('1.2.3-rc.1')) == 1",
      })
  void semverLibrary(String expression) {
    assertThat(eval(expression)).as(expression).isTrue();
  }

  @Test
  void invalidArgumentsAreEvaluationErrors() {
    assertThatThrownBy(() -> eval("quantity('12 apples').sign() == 1"))
        .isInstanceOfSatisfying(
            SelectorEvaluationException.class,
            e -> assertThat(e.reason()).contains("12 apples").contains("quantity"));
    assertThatThrownBy(() -> eval("quantity('1.5').asInteger() == 1"))
        .isInstanceOf(SelectorEvaluationException.class)
        .hasMessageContaining("asInteger")
        .hasMessageContaining("1.5");
    assertThatThrownBy(() -> eval("semver('1.2').major() == 1"))
        .isInstanceOf(SelectorEvaluationException.class)
        .hasMessageContaining("MAJOR.MINOR.PATCH");
  }

  @Test
  void quantityAndSemverDoNotMix() {
    assertThatThrownBy(() -> SELECTORS.compile("quantity('1').compareTo(semver('1.0.0')) == 0"))
        .isInstanceOf(SelectorCompileException.class);
    assertThatThrownBy(() -> SELECTORS.compile("semver('1.0.0').sign() == 1"))
        .isInstanceOf(SelectorCompileException.class);
  }
}
