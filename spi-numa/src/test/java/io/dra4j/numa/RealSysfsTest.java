package io.dra4j.numa;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.dra4j.api.device.Device;
import io.dra4j.api.device.DeviceAttribute;
import io.dra4j.api.device.PciBusId;
import io.dra4j.api.device.StandardAttributes;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * Checks the enricher against this machine's real {@code /sys}: the expected values come from a
 * shell reading the same files, not from the code under test.
 */
class RealSysfsTest {

  private static final Path PCI = Path.of("/sys/bus/pci/devices");

  private static List<String> pciDevices() throws IOException {
    if (!Files.isDirectory(PCI)) {
      return List.of();
    }
    try (Stream<Path> s = Files.list(PCI)) {
      return s.map(p -> p.getFileName().toString()).sorted().toList();
    }
  }

  private static List<String> shell(String script) throws IOException, InterruptedException {
    Process p =
        new ProcessBuilder("/bin/sh", "-c", script)
            .redirectError(ProcessBuilder.Redirect.DISCARD)
            .start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    p.waitFor();
    return out.lines().toList();
  }

  @Test
  void pcieRootAndNumaNodeMatchWhatTheShellReads() throws Exception {
    List<String> bdfs = pciDevices();
    assumeTrue(
        !bdfs.isEmpty(),
        "SKIPPED: /sys/bus/pci/devices is missing or empty on this machine; nothing to compare");
    NumaEnricher scalar = new NumaEnricher(Sysfs.host(), AttributeForm.SCALAR);
    NumaEnricher list = new NumaEnricher(Sysfs.host(), AttributeForm.LIST);
    List<String> checked = new ArrayList<>();

    for (String bdf : bdfs) {
      String dev = "'/sys/bus/pci/devices/" + bdf + "'";
      List<String> out = shell("readlink -f " + dev + "; cat " + dev + "/numa_node");
      String resolved = out.isEmpty() ? "" : out.get(0);
      Optional<String> numaText =
          out.size() > 1 ? Optional.of(out.get(1).trim()) : Optional.empty();

      boolean valid = PciBusId.PATTERN.matcher(bdf).matches();
      Optional<String> expectedRoot =
          valid && resolved.startsWith("/sys/devices/pci") && resolved.endsWith("/" + bdf)
              ? Optional.of(resolved.split("/")[3])
              : Optional.empty();
      Optional<Long> expectedNuma =
          numaText
              .filter(t -> valid && t.matches("-?[0-9]+"))
              .map(Long::parseLong)
              .filter(n -> n >= 0 && n <= 1023);

      Device in = Device.builder("d").attribute(StandardAttributes.PCI_BUS_ID, bdf).build();
      Device s = scalar.enrich("pool", in);
      Device l = list.enrich("pool", in);

      assertThat(s.attribute(StandardAttributes.PCIE_ROOT).map(DeviceAttribute::javaValue))
          .as("pcieRoot of %s (readlink -f: %s)", bdf, resolved)
          .isEqualTo(expectedRoot.map(Object.class::cast));
      assertThat(s.attribute(StandardAttributes.NUMA_NODE).map(DeviceAttribute::javaValue))
          .as("numaNode of %s (numa_node: %s)", bdf, numaText.orElse("<unreadable>"))
          .isEqualTo(expectedNuma.map(Object.class::cast));
      Optional<Object> listValue =
          l.attribute(StandardAttributes.NUMA_NODE).map(DeviceAttribute::javaValue);
      assertThat(listValue.isPresent()).isEqualTo(expectedNuma.isPresent());
      listValue.ifPresent(
          v ->
              assertThat((List<?>) v)
                  .as("list form of %s", bdf)
                  .first()
                  .isEqualTo(expectedNuma.get()));
      listValue.ifPresent(v -> assertThat((List<?>) v).doesNotHaveDuplicates());
      checked.add(bdf + " root=" + expectedRoot.orElse("-") + " numa=" + numaText.orElse("-"));
    }
    System.out.println("checked " + checked.size() + " PCI devices: " + checked);
  }

  @Test
  void topologyMatchesWhatTheShellReads() throws Exception {
    Path nodes = Path.of("/sys/devices/system/node");
    assumeTrue(
        Files.isDirectory(nodes), "SKIPPED: no /sys/devices/system/node (kernel without NUMA)");
    NumaTopology t = NumaTopology.read(Sysfs.host());
    List<String> out =
        shell(
            "cd /sys/devices/system/node && for n in node[0-9]*; do"
                + " echo \"${n#node}|$(cat $n/cpulist)|$(cat $n/distance)\"; done");

    assertThat(t.nodes()).hasSize(out.size());
    for (String line : out) {
      String[] f = line.split("\\|", -1);
      int id = Integer.parseInt(f[0]);
      NumaTopology.Node n = t.node(id).orElseThrow();
      assertThat(CpuList.format(n.cpus())).as("cpus of node %s", id).isEqualTo(f[1]);
      assertThat(n.distances().values().stream().map(String::valueOf).toList())
          .as("distances of node %s", id)
          .containsExactly(f[2].trim().split("\\s+"));
      for (int cpu : n.cpus()) {
        assertThat(t.nodeOfCpu(cpu)).hasValue(id);
      }
    }
  }
}
