package io.dra4j.examples.fake;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** The README's demo: the shipped jar tells the whole story and exits 0. */
class DemoIT {

  @Test
  void theDemoWalksThroughTheExtendedResourceStory() throws Exception {
    Process p =
        new ProcessBuilder(
                List.of(
                    Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                    "-jar",
                    System.getProperty("dra4j.jar"),
                    "demo"))
            .redirectErrorStream(true)
            .start();
    String out = new String(p.getInputStream().readAllBytes());
    assertThat(p.waitFor(120, TimeUnit.SECONDS)).isTrue();
    assertThat(p.exitValue()).as(out).isZero();
    assertThat(out)
        .contains("extendedResourceName: example.com/gpu")
        .contains("registered with the kubelet: v1.DRAPlugin")
        .contains("pcieRoot=pci0000:00")
        .contains("numaNode=1")
        .contains("example.com/gpu: 1")
        .contains("resource.kubernetes.io/extended-resource-claim=true")
        .contains("request container-0-request-0 -> gpu.example.com/demo-node/gpu-")
        .contains("CDI spec written")
        .contains("DRA_FAKE_DEVICE_")
        .contains("gpu-3 UNHEALTHY")
        .contains("tainted [gpu.example.com/unhealthy=FakeECC:NoSchedule]")
        .contains("taint lifted")
        .contains("unprepared; CDI spec")
        .contains("demo complete");
  }
}
