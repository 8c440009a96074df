package io.dra4j.runtime.internal.health;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class LabelSyntaxTest {

  @Test
  void reasonsBecomeLabelValues() {
    assertThat(LabelSyntax.toLabelValue("XID79")).isEqualTo("XID79");
    assertThat(LabelSyntax.toLabelValue("")).isEmpty();
    assertThat(LabelSyntax.toLabelValue("  --")).isEmpty();
    assertThat(LabelSyntax.toLabelValue("GPU fell off the bus!")).isEqualTo("GPU-fell-off-the-bus");
    assertThat(LabelSyntax.toLabelValue("ümlaut_x.y")).isEqualTo("mlaut_x.y");
    String longReason = "x".repeat(62) + "-yyyy";
    assertThat(LabelSyntax.toLabelValue(longReason)).isEqualTo("x".repeat(62));
    assertThat(LabelSyntax.toLabelValue("a".repeat(500))).hasSize(63);
  }
}
