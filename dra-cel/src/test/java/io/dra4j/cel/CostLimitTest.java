package io.dra4j.cel;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.dra4j.api.device.Device;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

/** The runtime cost limit that stands in for Kubernetes' estimated cost limit. */
class CostLimitTest {

  private static final Device DEVICE = Device.builder("gpu-0").attribute("type", "gpu").build();

  private static String list(int n) {
    return IntStream.range(0, n)
        .mapToObj(Integer::toString)
        .collect(Collectors.joining(",", "[", "]"));
  }

  @Test
  void loopsOverLargeValuesStopAtTheDefaultLimit() {
    // 1,000 iterations, each building strings of 6,000 to 12,000 characters (cost about 2,700
    // each): few nodes, but the values they produce add up to far over the limit.
    String big = "'" + "x".repeat(3_000) + "'";
    String expr = "cel.bind(s, " + big + ", " + list(1000) + ".all(i, size(s + s + s + s) > i))";
    CompiledSelector s = new CelSelectors().compile(expr);
    assertThatThrownBy(() -> s.matches("gpu.example.com", DEVICE))
        .isInstanceOfSatisfying(
            SelectorEvaluationException.class,
            e -> {
              assertThat(e.costLimitExceeded()).isTrue();
              assertThat(e.deviceName()).isEqualTo("gpu-0");
              assertThat(e.reason()).contains("1000000");
            });
  }

  @Test
  void ordinaryLoopsStayUnderTheDefaultLimit() {
    // 10,000 steps of a nested loop: heavier than any real device selector, well under the limit.
    String expr = "cel.bind(l, " + list(100) + ", l.all(x, l.all(y, x + y >= 0)))";
    assertThat(new CelSelectors().compile(expr).matches("gpu.example.com", DEVICE)).isTrue();
  }

  @Test
  void growingValuesAreCharged() {
    // Each bind doubles a string: few nodes, but 10 * 2^30 characters at the end. The size
    // charge stops it long before memory runs out.
    StringBuilder expr = new StringBuilder();
    int levels = 30;
    for (int i = 1; i <= levels; i++) {
      expr.append("cel.bind(s").append(i).append(", ");
      expr.append(i == 1 ? "'aaaaaaaaaa'" : "s" + (i - 1) + " + s" + (i - 1)).append(", ");
    }
    expr.append("size(s").append(levels).append(") > 0");
    expr.append(")".repeat(levels));
    CompiledSelector s = new CelSelectors().compile(expr.toString());
    assertThatThrownBy(() -> s.matches("gpu.example.com", DEVICE))
        .isInstanceOfSatisfying(
            SelectorEvaluationException.class, e -> assertThat(e.costLimitExceeded()).isTrue());
  }

  @Test
  void limitIsPerEvaluationAndExact() {
    // About 6 steps per element (loop variable, accumulator, condition, body): with a limit of 40
    // a 6-element loop (39) passes and a 12-element one (76) fails.
    CelSelectors tight = new CelSelectors(16, 40);
    String ok = list(6) + ".all(x, x >= 0)";
    String tooMuch = list(12) + ".all(x, x >= 0)";
    CompiledSelector pass = tight.compile(ok);
    for (int i = 0; i < 5; i++) {
      assertThat(pass.matches("d", DEVICE)).isTrue(); // cost does not accumulate across calls
    }
    assertThatThrownBy(() -> tight.compile(tooMuch).matches("d", DEVICE))
        .isInstanceOfSatisfying(
            SelectorEvaluationException.class, e -> assertThat(e.costLimitExceeded()).isTrue());
    // Error absorption cannot hide the abort: `true || <over limit>` still fails.
    assertThatThrownBy(() -> tight.compile(tooMuch + " || true").matches("d", DEVICE))
        .isInstanceOf(SelectorEvaluationException.class);
    assertThat(tight.compile(tooMuch).matchesTreatingErrorsAsNoMatch("d", DEVICE)).isFalse();
  }
}
