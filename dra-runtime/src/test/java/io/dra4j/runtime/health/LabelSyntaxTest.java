package io.dra4j.runtime.health;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class LabelSyntaxTest {

  @Test
  void labelNames() {
    assertThat(LabelSyntax.labelName("gpu.example.com/unhealthy")).isEmpty();
    assertThat(LabelSyntax.labelName("unhealthy")).isEmpty();
    assertThat(LabelSyntax.labelName("a".repeat(253) + "/" + "b".repeat(63))).isEmpty();
    assertThat(LabelSyntax.labelName("a".repeat(254) + "/x")).anyMatch(p -> p.contains("253"));
    assertThat(LabelSyntax.labelName("example.com/" + "b".repeat(64)))
        .anyMatch(p -> p.contains("64 characters, the limit is 63"));
    assertThat(LabelSyntax.labelName("Example.com/x")).anyMatch(p -> p.contains("lower-case"));
    assertThat(LabelSyntax.labelName("example.com/-x")).isNotEmpty();
    assertThat(LabelSyntax.labelName("/x")).isNotEmpty();
    assertThat(LabelSyntax.labelName("example.com/")).isNotEmpty();
    assertThat(LabelSyntax.labelName("")).isNotEmpty();
    assertThat(LabelSyntax.reservedPrefix("resource.kubernetes.io/x")).isTrue();
    assertThat(LabelSyntax.reservedPrefix("kubernetes.io/x")).isTrue();
    assertThat(LabelSyntax.reservedPrefix("notkubernetes.io/x")).isFalse();
  }

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
