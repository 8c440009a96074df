package io.dra4j.nvidia;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.datatype.jdk8.Jdk8Module;
import io.dra4j.api.device.CounterSet;
import io.dra4j.api.device.Device;
import io.dra4j.api.provider.DeviceEnricher;
import io.dra4j.api.provider.Inventory;
import io.dra4j.api.provider.ProviderContext;
import io.dra4j.nvidia.nvml.NvmlLoader;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The discover command prints the inventory as JSON that reads back as the same model. */
class DiscoverCommandTest {
  private final ObjectMapper mapper = new ObjectMapper().registerModule(new Jdk8Module());

  @TempDir Path tmp;
  private FakeNvml fake;
  private final ByteArrayOutputStream out = new ByteArrayOutputStream();
  private final ByteArrayOutputStream err = new ByteArrayOutputStream();

  @BeforeEach
  void setUp() {
    fake = FakeNvml.current();
  }

  @AfterEach
  void nvmlShutDown() {
    if (fake != null) {
      assertThat(fake.initCount()).isZero();
    }
  }

  private int run(ProviderContext context) {
    return NvidiaDiscoverCommand.run(
        context,
        new PrintStream(out, true, StandardCharsets.UTF_8),
        new PrintStream(err, true, StandardCharsets.UTF_8));
  }

  @Test
  void enrichersSeeEveryDeviceBeforeItIsPrinted() throws Exception {
    fake.configure(tmp, "gpus=2");
    List<String> seen = new ArrayList<>();
    DeviceEnricher marker =
        (pool, device) -> {
          seen.add(pool + "/" + device.name());
          return device.toBuilder().attribute("enriched", true).build();
        };
    assertThat(
            NvidiaDiscoverCommand.run(
                fake.context(tmp),
                List.of(marker),
                new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8)))
        .isZero();
    assertThat(seen).containsExactly("node-a/gpu-0", "node-a/gpu-1");
    assertThat(out.toString(StandardCharsets.UTF_8)).contains("\"enriched\"");
  }

  @Test
  void printsJsonThatReadsBackAsTheDiscoveredModel() throws Exception {
    String[] scenario = {
      "gpus=3", "gpu.1.mig=1", "gpu.1.instances=0@0,2@4", "gpu.2.name=GPU \"quoted\" \\ name"
    };
    fake.configure(tmp, scenario);
    ProviderContext ctx = fake.context(tmp, Map.of("mig-mode", "partitionable"));
    assertThat(run(ctx)).isZero();
    JsonNode json = mapper.readTree(out.toString(StandardCharsets.UTF_8));

    fake.configure(tmp, scenario);
    Inventory expected;
    try (NvidiaDeviceProvider p = new NvidiaDeviceProvider()) {
      expected = p.discover(ctx);
    }
    JsonNode pool = json.get("pools").get(0);
    assertThat(pool.get("name").asText()).isEqualTo("node-a");
    List<Device> devices = new ArrayList<>();
    for (JsonNode d : pool.get("devices")) {
      devices.add(mapper.treeToValue(d, Device.class));
    }
    List<CounterSet> sets = new ArrayList<>();
    for (JsonNode s : pool.get("counterSets")) {
      sets.add(mapper.treeToValue(s, CounterSet.class));
    }
    assertThat(devices).isEqualTo(expected.pools().get(0).devices()).hasSize(3 * 26);
    assertThat(sets).isEqualTo(expected.pools().get(0).counterSets()).hasSize(3);
    // Same text as the API server would get from Jackson (same field order and forms).
    assertThat(pool.get("devices").get(0))
        .isEqualTo(mapper.valueToTree(expected.pools().get(0).devices().get(0)));
  }

  @Test
  void inventoryJsonIsTheSameDocument() throws Exception {
    fake.configure(tmp, "gpus=1");
    String json = NvidiaDiscoverCommand.inventoryJson(fake.context(tmp));
    JsonNode d = mapper.readTree(json).get("pools").get(0).get("devices").get(0);
    assertThat(d.get("name").asText()).isEqualTo("gpu-0");
    assertThat(d.get("attributes").get("driverVersion").get("version").asText())
        .isEqualTo("550.54.15");
    assertThat(d.get("capacity").get("memory").get("value").asText()).isEqualTo("80Gi");
  }

  @Test
  void aMissingLibraryExitsOneNamingEveryPathTried() {
    Path root = tmp.resolve("no-driver-here");
    ProviderContext ctx =
        ProviderContext.builder("gpu.nvidia.com", "node-a")
            .config("driver-root", root.toString())
            .build();
    assertThat(run(ctx)).isEqualTo(1);
    String text = err.toString(StandardCharsets.UTF_8);
    assertThat(text).startsWith("discover failed: cannot load the NVIDIA management library");
    for (Path candidate : NvmlLoader.candidates(root)) {
      assertThat(text).contains(candidate + " (not found)");
    }
    assertThat(out.size()).isZero();
  }
}
