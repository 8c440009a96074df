package io.dra4j.cel;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.dra4j.api.device.Device;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/** Compilation: errors, limits and the cache. */
class CelSelectorsTest {

  private final CelSelectors selectors = new CelSelectors();

  @Test
  void syntaxErrorNamesExpressionAndPosition() {
    String expr = "device.driver == ";
    assertThatThrownBy(() -> selectors.compile(expr))
        .isInstanceOfSatisfying(
            SelectorCompileException.class,
            e -> {
              assertThat(e.expression()).isEqualTo(expr);
              assertThat(e.line()).isEqualTo(1);
              assertThat(e.column()).isEqualTo(18);
              assertThat(e.getMessage())
                  .contains("\"device.driver == \"")
                  .contains("line 1, column 18")
                  .contains("mismatched input");
            });
  }

  @Test
  void errorPositionCountsLines() {
    String expr = "device.driver == 'a' &&\n  device.attributes['a'].x = 1";
    assertThatThrownBy(() -> selectors.compile(expr))
        .isInstanceOfSatisfying(
            SelectorCompileException.class, e -> assertThat(e.line()).isEqualTo(2));
  }

  @Test
  void typeErrorsAreCompileErrors() {
    assertThatThrownBy(() -> selectors.compile("quantity(1).isInteger()"))
        .isInstanceOf(SelectorCompileException.class)
        .hasMessageContaining("quantity")
        .hasMessageContaining("(int)");
    assertThatThrownBy(() -> selectors.compile("device.driver == 1"))
        .isInstanceOf(SelectorCompileException.class)
        .hasMessageContaining("(string, int)");
    // device is a typed object: a misspelt field fails here, not at run time.
    assertThatThrownBy(() -> selectors.compile("device.drivr == 'a'"))
        .isInstanceOfSatisfying(
            SelectorCompileException.class,
            e -> {
              assertThat(e.reason()).contains("drivr");
              assertThat(e.column()).isEqualTo(7);
            });
    assertThatThrownBy(() -> selectors.compile("device.capacity['a'].memory.major() == 1"))
        .isInstanceOf(SelectorCompileException.class)
        .hasMessageContaining("major");
    assertThatThrownBy(() -> selectors.compile("undeclared == 1"))
        .isInstanceOf(SelectorCompileException.class)
        .hasMessageContaining("undeclared");
  }

  @Test
  void mixedTypeLiteralsAreRejectedAsInKubernetes() {
    assertThatThrownBy(() -> selectors.compile("[1, 'a'].size() == 2"))
        .isInstanceOf(SelectorCompileException.class);
    assertThatThrownBy(() -> selectors.compile("{'a': 1, 'b': 'x'}.size() == 2"))
        .isInstanceOf(SelectorCompileException.class);
    assertThat(selectors.compile("[1, 2].size() == 2").matches("d", Device.builder("x").build()))
        .isTrue();
  }

  @Test
  void resultMustBeBool() {
    assertThatThrownBy(() -> selectors.compile("device.driver"))
        .isInstanceOf(SelectorCompileException.class);
    assertThatThrownBy(() -> selectors.compile("1 + 1"))
        .isInstanceOf(SelectorCompileException.class);
  }

  @Test
  void expressionLengthLimitIsInBytes() {
    String atLimit = "true" + " ".repeat(CelSelectors.MAX_EXPRESSION_LENGTH - 4);
    assertThat(selectors.compile(atLimit).matches("d", Device.builder("x").build())).isTrue();

    String overLimit = atLimit + " ";
    assertThatThrownBy(() -> selectors.compile(overLimit))
        .isInstanceOfSatisfying(
            SelectorCompileException.class,
            e -> {
              assertThat(e.reason()).contains("10241 bytes").contains("10240");
              assertThat(e.line()).isZero();
              // The message quotes a shortened expression, not 10 KiB of it.
              assertThat(e.getMessage().length()).isLessThan(500);
            });

    // 'é' is two bytes: about 5,200 characters are already too long.
    String multiByte = "'" + "é".repeat(5200) + "' != ''";
    assertThat(multiByte.length()).isLessThan(CelSelectors.MAX_EXPRESSION_LENGTH);
    assertThat(multiByte.getBytes(StandardCharsets.UTF_8).length)
        .isGreaterThan(CelSelectors.MAX_EXPRESSION_LENGTH);
    assertThatThrownBy(() -> selectors.compile(multiByte))
        .isInstanceOf(SelectorCompileException.class)
        .hasMessageContaining("CELSelectorExpressionMaxLength");
  }

  @Test
  void sameExpressionIsCompiledOnce() {
    String expr = "device.driver == 'gpu.example.com'";
    CompiledSelector first = selectors.compile(expr);
    CompiledSelector second = selectors.compile(expr);
    assertThat(second).isSameAs(first);
    assertThat(selectors.compilations()).isEqualTo(1);
    selectors.compile("device.driver == 'other'");
    assertThat(selectors.compilations()).isEqualTo(2);
    assertThat(selectors.cachedExpressions()).isEqualTo(2);
  }

  @Test
  void compileFailuresAreCachedToo() {
    assertThatThrownBy(() -> selectors.compile("device.driver ==")).hasMessageContaining("line 1");
    assertThatThrownBy(() -> selectors.compile("device.driver ==")).hasMessageContaining("line 1");
    assertThat(selectors.compilations()).isEqualTo(1);
  }

  @Test
  void oversizedExpressionsNeverEnterTheCache() {
    String tooLong = "true" + " ".repeat(CelSelectors.MAX_EXPRESSION_LENGTH);
    assertThatThrownBy(() -> selectors.compile(tooLong))
        .isInstanceOf(SelectorCompileException.class);
    assertThat(selectors.compilations()).isZero();
    assertThat(selectors.cachedExpressions()).isZero();
  }

  @Test
  void cacheIsBoundedLeastRecentlyUsed() {
    CelSelectors small = new CelSelectors(2);
    small.compile("device.driver == 'a'");
    small.compile("device.driver == 'b'");
    small.compile("device.driver == 'a'"); // a is now the most recently used
    small.compile("device.driver == 'c'"); // evicts b
    assertThat(small.compilations()).isEqualTo(3);
    assertThat(small.cachedExpressions()).isEqualTo(2);
    small.compile("device.driver == 'a'");
    assertThat(small.compilations()).isEqualTo(3);
    small.compile("device.driver == 'b'");
    assertThat(small.compilations()).isEqualTo(4);
    assertThatThrownBy(() -> new CelSelectors(0)).isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void sharedInstanceIsOne() {
    assertThat(CelSelectors.shared()).isSameAs(CelSelectors.shared());
    assertThat(CelSelectors.shared().compile("true").expression()).isEqualTo("true");
  }
}
