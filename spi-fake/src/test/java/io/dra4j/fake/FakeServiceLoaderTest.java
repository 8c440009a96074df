package io.dra4j.fake;

import static org.assertj.core.api.Assertions.assertThat;

import io.dra4j.api.device.Device;
import io.dra4j.api.device.DeviceAttribute;
import io.dra4j.api.device.StandardAttributes;
import io.dra4j.api.provider.DeviceEnricher;
import io.dra4j.api.provider.DeviceProvider;
import io.dra4j.api.provider.Inventory;
import io.dra4j.api.provider.ProviderContext;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.ServiceLoader;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** What the launcher does: pick the provider by name, run every enricher over its devices. */
class FakeServiceLoaderTest {

  @TempDir Path sys;

  private void pciDevice(String bdf, String path, int numa) throws Exception {
    Path dev = sys.resolve("devices/" + path);
    Files.createDirectories(dev);
    Files.writeString(dev.resolve("numa_node"), numa + "\n");
    Path link = sys.resolve("bus/pci/devices/" + bdf);
    Files.createDirectories(link.getParent());
    Files.createSymbolicLink(link, Path.of("../../../devices/" + path));
  }

  @Test
  void theProviderIsFoundByNameAndItsFakeBusIdsAreEnriched() throws Exception {
    pciDevice("0000:01:00.0", "pci0000:00/0000:00:01.0/0000:01:00.0", 0);
    pciDevice("0000:02:00.0", "pci0000:80/0000:80:02.0/0000:02:00.0", 1);
    ProviderContext ctx =
        ProviderContext.builder("fake.dra4j.io", "node-a")
            .sysfsRoot(sys)
            .config("devices", "2")
            .config("partitions", "1")
            .config("pci-bus-ids", "fake")
            .build();

    Optional<DeviceProvider> provider =
        ServiceLoader.load(DeviceProvider.class).stream()
            .map(ServiceLoader.Provider::get)
            .filter(p -> p.name().equals("fake"))
            .findFirst();
    assertThat(provider).get().isInstanceOf(FakeDeviceProvider.class);

    List<DeviceEnricher> enrichers =
        ServiceLoader.load(DeviceEnricher.class).stream().map(ServiceLoader.Provider::get).toList();
    assertThat(enrichers)
        .extracting(e -> e.getClass().getName())
        .contains("io.dra4j.numa.NumaEnricher");
    enrichers.forEach(e -> e.init(ctx));

    Inventory inv = provider.get().discover(ctx);
    List<Device> enriched =
        inv.pools().get(0).devices().stream()
            .map(
                d -> {
                  Device out = d;
                  for (DeviceEnricher e : enrichers) {
                    out = e.enrich("node-a", out);
                  }
                  return out;
                })
            .toList();

    assertThat(enriched)
        .extracting(Device::name)
        .containsExactly("gpu-0", "gpu-0-part-0", "gpu-1", "gpu-1-part-0");
    assertThat(enriched)
        .extracting(d -> d.attribute(StandardAttributes.PCIE_ROOT).map(DeviceAttribute::javaValue))
        .containsExactly(
            Optional.of("pci0000:00"),
            Optional.of("pci0000:00"),
            Optional.of("pci0000:80"),
            Optional.of("pci0000:80"));
    assertThat(enriched)
        .extracting(d -> d.attribute(StandardAttributes.NUMA_NODE).map(DeviceAttribute::javaValue))
        .containsExactly(Optional.of(0L), Optional.of(0L), Optional.of(1L), Optional.of(1L));
    provider.get().close();
  }
}
