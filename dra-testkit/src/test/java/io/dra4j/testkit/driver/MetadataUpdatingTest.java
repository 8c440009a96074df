package io.dra4j.testkit.driver;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.dra4j.api.claim.ClaimAllocation;
import io.dra4j.api.claim.ClaimRef;
import io.dra4j.api.claim.DeviceException;
import io.dra4j.api.claim.PrepareResult;
import io.dra4j.api.claim.PreparedClaim;
import io.dra4j.api.device.DeviceAttribute;
import io.dra4j.api.metadata.DeviceMetadata;
import io.dra4j.api.metadata.MetadataUpdating;
import io.dra4j.api.metadata.RequestMetadataWriter;
import io.dra4j.api.provider.DeviceProvider;
import io.dra4j.api.provider.Inventory;
import io.dra4j.api.provider.ProviderContext;
import io.dra4j.fake.FakeDeviceProvider;
import io.dra4j.testkit.kubelet.PluginInstance;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A provider that implements {@link MetadataUpdating} gets its writer from the driver before the
 * kubelet can call, and updates a prepared claim's device metadata through it; a driver without
 * device metadata hands out a writer that refuses, as upstream's {@code UpdateRequestMetadata}
 * does.
 */
class MetadataUpdatingTest {
  static final String DRIVER = FakeNode.DRIVER;
  static final String NODE = FakeNode.NODE;

  @TempDir Path tmp;
  FakeNode node;

  /** The fake provider, plus the capability. */
  static final class Updating implements DeviceProvider, MetadataUpdating {
    final FakeDeviceProvider fake = new FakeDeviceProvider();
    volatile RequestMetadataWriter writer;
    volatile boolean writerBeforePrepare;

    @Override
    public void useMetadataWriter(RequestMetadataWriter value) {
      writer = value;
    }

    @Override
    public Inventory discover(ProviderContext context) throws Exception {
      return fake.discover(context);
    }

    @Override
    public PrepareResult prepare(ClaimAllocation allocation) throws DeviceException {
      writerBeforePrepare = writer != null;
      return fake.prepare(allocation);
    }

    @Override
    public void unprepare(PreparedClaim claim) throws DeviceException {
      fake.unprepare(claim);
    }
  }

  PluginInstance start(Updating provider, boolean metadata) throws Exception {
    node = FakeNode.start(tmp);
    return node.start(
        node.driver(provider)
            .config(FakeDeviceProvider.CONFIG_DEVICES, "1")
            .pluginDirectory(tmp.resolve("plugins"))
            .deviceMetadata(metadata));
  }

  @AfterEach
  void tearDown() {
    if (node != null) {
      node.close();
    }
  }

  @Test
  void theProviderUpdatesAPreparedClaimsMetadataThroughItsWriter() throws Exception {
    Updating provider = new Updating();
    PluginInstance plugin = start(provider, true);
    ClaimRef claim = SeededClaims.allocated(node.api, DRIVER, "net", NODE, "gpu-0", null);
    assertThat(plugin.prepare(List.of(claim)).get(claim.uid()).error()).isEmpty();
    assertThat(provider.writerBeforePrepare).isTrue();

    provider.writer.update(
        claim,
        "gpu",
        List.of(
            DeviceMetadata.builder(NODE, "gpu-0")
                .attribute("firmware", DeviceAttribute.version("1.2.3"))
                .build()));

    Path file = tmp.resolve("plugins/dra-device-metadata/ns_net/gpu/metadata.json");
    JsonNode m = new ObjectMapper().readTree(file.toFile());
    assertThat(m.path("metadata").path("generation").asLong()).isEqualTo(2);
    assertThat(
            m.path("requests")
                .get(0)
                .path("devices")
                .get(0)
                .path("attributes")
                .path("firmware")
                .path("version")
                .asText())
        .isEqualTo("1.2.3");
  }

  @Test
  void withoutDeviceMetadataTheWriterRefuses() throws Exception {
    Updating provider = new Updating();
    PluginInstance plugin = start(provider, false);
    ClaimRef claim = SeededClaims.allocated(node.api, DRIVER, "plain", NODE, "gpu-0", null);
    assertThat(plugin.prepare(List.of(claim)).get(claim.uid()).error()).isEmpty();

    assertThatThrownBy(
            () ->
                provider.writer.update(
                    claim, "gpu", List.of(DeviceMetadata.builder(NODE, "gpu-0").build())))
        .isInstanceOf(DeviceException.class)
        .hasMessage("device metadata is not enabled");
  }
}
