package io.dra4j.api.device;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class PciBusIdTest {

  @Test
  void whatToolsPrintBecomesTheStandardForm() {
    assertThat(PciBusId.parse("0000:3b:00.0").value()).isEqualTo("0000:3b:00.0");
    assertThat(PciBusId.parse(" 0000:3B:00.0\n").value()).isEqualTo("0000:3b:00.0");
    // NVML's eight-digit domain, and a domain printed without its leading zeros.
    assertThat(PciBusId.parse("00000000:C1:00.0").value()).isEqualTo("0000:c1:00.0");
    assertThat(PciBusId.parse("1:07:00.1").value()).isEqualTo("0001:07:00.1");
    PciBusId id = PciBusId.parse("000a:3b:00.0");
    assertThat(id.domain()).isEqualTo("000a");
    assertThat(id.bus()).isEqualTo("3b");
  }

  @Test
  void addressesTheStandardFormCannotExpressAreRefusedNamingTheValue() {
    // VMD puts devices in domain 10000: five digits do not fit dddd.
    assertThatThrownBy(() -> PciBusId.parse("10000:e0:00.0"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("\"10000:e0:00.0\"")
        .hasMessageContaining("must match");
    assertThatThrownBy(() -> PciBusId.parse("0000:00:01")).hasMessageContaining("\"0000:00:01\"");
  }

  @Test
  void onlyTheLowerCaseFourDigitFormIsCanonical() {
    assertThat(PciBusId.isCanonical("0000:3b:00.0")).isTrue();
    assertThat(PciBusId.isCanonical("0000:3B:00.0")).isFalse();
    assertThat(PciBusId.isCanonical("00000000:3b:00.0")).isFalse();
    assertThat(PciBusId.isCanonical("0000:3b:00.0 ")).isFalse();
  }
}
