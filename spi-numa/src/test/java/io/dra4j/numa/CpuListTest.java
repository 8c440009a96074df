package io.dra4j.numa;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import org.junit.jupiter.api.Test;

class CpuListTest {

  @Test
  void parsesNumbersAndRanges() {
    assertThat(CpuList.parse("0-3,8-11\n")).containsExactly(0, 1, 2, 3, 8, 9, 10, 11);
    assertThat(CpuList.parse("5")).containsExactly(5);
    assertThat(CpuList.parse("7,1,3-4")).containsExactly(1, 3, 4, 7);
    assertThat(CpuList.parse("")).isEmpty();
    assertThat(CpuList.parse("\n")).isEmpty();
  }

  @Test
  void formatsWithRanges() {
    assertThat(CpuList.format(List.of(0, 1, 2, 3, 8, 9, 10, 11))).isEqualTo("0-3,8-11");
    assertThat(CpuList.format(List.of(4, 0, 2, 1))).isEqualTo("0-2,4");
    assertThat(CpuList.format(List.of())).isEmpty();
    assertThat(CpuList.parse(CpuList.format(List.of(3, 5, 6, 7, 100))))
        .containsExactly(3, 5, 6, 7, 100);
  }

  @Test
  void rejectsMalformedLists() {
    assertThatThrownBy(() -> CpuList.parse("0-")).hasMessageContaining("\"0-\"");
    assertThatThrownBy(() -> CpuList.parse("3-1")).hasMessageContaining("descending");
    assertThatThrownBy(() -> CpuList.parse("a")).hasMessageContaining("not a number");
    assertThatThrownBy(() -> CpuList.parse("0,,1")).hasMessageContaining("not a number");
    assertThatThrownBy(() -> CpuList.parse("0-99999999")).hasMessageContaining("not a number");
  }
}
