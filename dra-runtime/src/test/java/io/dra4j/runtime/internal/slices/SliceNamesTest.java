package io.dra4j.runtime.internal.slices;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.Map;
import java.util.OptionalInt;
import java.util.function.Function;
import org.junit.jupiter.api.Test;

class SliceNamesTest {

  @Test
  void indexWidthIsAtLeastFiveHexDigits() {
    assertThat(SliceNames.indexWidth(1)).isEqualTo(5);
    assertThat(SliceNames.indexWidth(0x100000)).isEqualTo(5);
    assertThat(SliceNames.indexWidth(0x100001)).isEqualTo(6);
    assertThatThrownBy(() -> SliceNames.indexWidth(0)).isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void generateNameStartsWithThePaddedLowerCaseHexIndex() {
    assertThat(SliceNames.generateName(0, 1, "gpu.example.com", "node-1"))
        .isEqualTo("00000-gpu.example.com-node-1-");
    assertThat(SliceNames.generateName(10, 20, "gpu.example.com", "node-1"))
        .isEqualTo("0000a-gpu.example.com-node-1-");
    assertThat(SliceNames.generateName(0x12345, 0x200000, "gpu.example.com", "node-1"))
        .isEqualTo("012345-gpu.example.com-node-1-");
    assertThat(SliceNames.generateName(1, 2, "GPU.Example.com", "node-1"))
        .isEqualTo("00001-gpu.example.com-node-1-");
    assertThatThrownBy(() -> SliceNames.generateName(2, 2, "d.example.com", "n"))
        .hasMessage("slice index 2 is outside 0..1");
  }

  @Test
  void lexicographicNameOrderIsIndexOrder() {
    List<String> names =
        java.util.stream.IntStream.range(0, 300)
            .mapToObj(i -> SliceNames.generateName(i, 300, "d.example.com", "n") + "x7k2q")
            .toList();
    assertThat(names).isSorted();
  }

  @Test
  void parseIndexReadsBackWhatGenerateNameWrote() {
    for (int n : List.of(1, 2, 17, 300)) {
      for (int i = 0; i < n; i++) {
        String name = SliceNames.generateName(i, n, "gpu.example.com", "node-1") + "abcde";
        assertThat(SliceNames.parseIndex(name, n)).isEqualTo(OptionalInt.of(i));
      }
    }
  }

  @Test
  void parseIndexRejectsWhatDoesNotFollowTheConvention() {
    // Random names from the 1.34/1.35 scheme.
    assertThat(SliceNames.parseIndex("node-1-gpu.example.com-x7k2q", 4)).isEmpty();
    // Wrong width: four or six digits where five are expected.
    assertThat(SliceNames.parseIndex("0001-gpu.example.com-node-1-x7k2q", 4)).isEmpty();
    assertThat(SliceNames.parseIndex("000001-gpu.example.com-node-1-x7k2q", 4)).isEmpty();
    // Not hex, upper case, sign.
    assertThat(SliceNames.parseIndex("0000g-gpu.example.com-node-1-x7k2q", 4)).isEmpty();
    assertThat(SliceNames.parseIndex("0000A-gpu.example.com-node-1-x7k2q", 20)).isEmpty();
    assertThat(SliceNames.parseIndex("+0001-gpu.example.com-node-1-x7k2q", 4)).isEmpty();
    // Out of range.
    assertThat(SliceNames.parseIndex("00004-gpu.example.com-node-1-x7k2q", 4)).isEmpty();
    assertThat(SliceNames.parseIndex("00003-gpu.example.com-node-1-x7k2q", 4))
        .isEqualTo(OptionalInt.of(3));
    // No separator at all.
    assertThat(SliceNames.parseIndex("00001", 4)).isEmpty();
    // More slices than the width covers: the width grows, old names no longer match.
    assertThat(SliceNames.parseIndex("00001-d-n-x", 0x100001)).isEmpty();
    assertThat(SliceNames.parseIndex("fffffff-d-n-x", 0x10000000))
        .isEqualTo(OptionalInt.of(0xfffffff));
  }

  @Test
  void matchKeepsTheFirstOfDuplicatesAndMarksTheRestObsolete() {
    List<String> existing =
        List.of(
            "00001-d.example.com-n-aaaaa",
            "00000-d.example.com-n-bbbbb",
            "00001-d.example.com-n-ccccc",
            "n-d.example.com-ddddd",
            "00007-d.example.com-n-eeeee");
    SliceMatch<String> m = SliceNames.match(existing, Function.identity(), 3);
    assertThat(m.matched())
        .isEqualTo(Map.of(0, "00000-d.example.com-n-bbbbb", 1, "00001-d.example.com-n-aaaaa"));
    assertThat(m.matched().keySet()).containsExactly(0, 1);
    assertThat(m.obsolete())
        .containsExactly(
            "00001-d.example.com-n-ccccc", "n-d.example.com-ddddd", "00007-d.example.com-n-eeeee");
    assertThat(m.at(2)).isEmpty();
    assertThat(m.at(0)).contains("00000-d.example.com-n-bbbbb");
  }

  @Test
  void generateNameIsAnObjectNamePrefixForPoolNamesWithSlashes() {
    assertThat(SliceNames.generateName(0, 1, "net.example.com", "fabric-a/rack-3"))
        .isEqualTo("00000-net.example.com-fabric-a-rack-3-");
  }

  @Test
  void generateNameIsCutLikeTheApiServerCutsItAndKeepsTheIndex() {
    String node = "ip-10-0-113-42.eu-central-1.compute.internal";
    String name = SliceNames.generateName(3, 4, "gpu.nvidia.com", node);
    assertThat(name).hasSize(SliceNames.MAX_GENERATE_NAME_LENGTH);
    assertThat(name).startsWith("00003-gpu.nvidia.com-ip-10-0-113-42.");
    // With the server's 5 random characters it is still a valid name, and the index reads back.
    assertThat(name + "x7k2q").matches("[a-z0-9]([-a-z0-9.]*[a-z0-9])?").hasSize(63);
    assertThat(SliceNames.parseIndex(name + "x7k2q", 4)).isEqualTo(OptionalInt.of(3));
  }
}
