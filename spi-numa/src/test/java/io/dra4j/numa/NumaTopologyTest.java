package io.dra4j.numa;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class NumaTopologyTest {

  @TempDir Path dir;

  private FakeSysfs twoSockets() {
    return new FakeSysfs(dir)
        .online("0-3")
        .node(0, List.of(0, 1, 8, 9), 0, List.of(10, 12, 12, 20))
        .node(1, List.of(2, 3, 10, 11), 0, List.of(12, 10, 20, 12))
        .node(2, List.of(4, 5, 12, 13), 1, List.of(12, 20, 10, 12))
        .node(3, List.of(6, 7, 14, 15), 1, List.of(20, 12, 12, 10));
  }

  @Test
  void readsNodesCpusDistancesAndSockets() throws IOException {
    NumaTopology t = NumaTopology.read(twoSockets().sysfs());

    assertThat(t.nodes()).extracting(NumaTopology.Node::id).containsExactly(0, 1, 2, 3);
    assertThat(t.node(1).orElseThrow().cpus()).containsExactly(2, 3, 10, 11);
    assertThat(t.distance(0, 3)).hasValue(20);
    assertThat(t.distance(3, 1)).hasValue(12);
    assertThat(t.distance(0, 7)).isEmpty();
    assertThat(t.nodeOfCpu(12)).hasValue(2);
    assertThat(t.nodeOfCpu(99)).isEmpty();
    assertThat(t.sockets()).isEqualTo(Map.of(0, List.of(0, 1), 1, List.of(2, 3)));
    assertThat(t.localNodes(3)).containsExactly(3, 2);
    assertThat(t.localNodes(0)).containsExactly(0, 1);
    assertThatThrownBy(() -> t.localNodes(9)).hasMessageContaining("NUMA node 9");
  }

  @Test
  void snapshotAndLiveSysfsApplyTheSameRule() throws IOException {
    FakeSysfs fs = twoSockets();
    NumaTopology t = NumaTopology.read(fs.sysfs());
    PciTopology live = new PciTopology(fs.sysfs());

    for (NumaTopology.Node n : t.nodes()) {
      assertThat(t.localNodes(n.id())).isEqualTo(live.localNodes(n.id()));
    }
  }

  @Test
  void nodeOfCpuAgreesWithTheKernelsCpuNodeLinks() throws IOException {
    FakeSysfs fs = twoSockets();
    NumaTopology t = NumaTopology.read(fs.sysfs());

    for (int cpu = 0; cpu < 16; cpu++) {
      int c = cpu;
      String link =
          List.of(0, 1, 2, 3).stream()
              .filter(n -> fs.sysfs().exists("devices/system/cpu/cpu" + c + "/node" + n))
              .map(String::valueOf)
              .findFirst()
              .orElseThrow();
      assertThat(t.nodeOfCpu(cpu)).hasValue(Integer.parseInt(link));
    }
  }

  @Test
  void memoryOnlyNodesHaveNoSocketAndNodeDirectoriesStandInForOnline() throws IOException {
    new FakeSysfs(dir)
        .node(0, List.of(0, 1), 0, List.of(10, 14))
        .write("devices/system/node/node1/cpulist", "\n")
        .write("devices/system/node/node1/distance", "14 10\n");

    NumaTopology t = NumaTopology.read(Sysfs.at(dir));

    assertThat(t.nodes()).extracting(NumaTopology.Node::id).containsExactly(0, 1);
    assertThat(t.node(1).orElseThrow().socket()).isEqualTo(OptionalInt.empty());
    assertThat(t.node(1).orElseThrow().cpus()).isEmpty();
    assertThat(t.localNodes(0)).containsExactly(0, 1);
    assertThat(t.sockets()).isEqualTo(Map.of(0, List.of(0)));
  }

  @Test
  void noNodeDirectoryIsTheEmptyTopologyAndBrokenFilesAreNamed() throws IOException {
    assertThat(NumaTopology.read(Sysfs.at(dir)).isEmpty()).isTrue();

    new FakeSysfs(dir).online("0").write("devices/system/node/node0/cpulist", "0-x\n");
    assertThatThrownBy(() -> NumaTopology.read(Sysfs.at(dir)))
        .isInstanceOf(IOException.class)
        .hasMessageContaining("/sys/devices/system/node/node0/cpulist");
  }

  @Test
  void duplicateNodesAreRejected() {
    NumaTopology.Node n = new NumaTopology.Node(0, List.of(0), OptionalInt.of(0), Map.of(0, 10));
    assertThatThrownBy(() -> new NumaTopology(List.of(n, n))).hasMessageContaining("twice");
  }
}
