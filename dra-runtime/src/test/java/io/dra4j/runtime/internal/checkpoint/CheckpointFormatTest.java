package io.dra4j.runtime.internal.checkpoint;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.dra4j.api.claim.ClaimRef;
import io.dra4j.api.claim.PreparedClaim;
import io.dra4j.api.claim.RecordedDevice;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * The file format against committed fixtures: what older versions wrote must stay readable, what
 * newer versions write must be readable as far as this version understands it, and the current
 * writer must still produce the committed v1 form (a change here needs a new fixture and a version
 * decision, see the package documentation).
 */
class CheckpointFormatTest {
  private static final ObjectMapper MAPPER = new ObjectMapper();
  private static final String UID = "6f1c2a9e-1111-4000-8000-000000000002";
  private static final String BOOT = "0e6a1a43-33e0-4b7a-9c6f-3b1f7a0c9d11";

  static byte[] fixture(String name) throws IOException {
    try (InputStream in = CheckpointFormatTest.class.getResourceAsStream(name)) {
      if (in == null) {
        throw new IOException("missing test fixture " + name);
      }
      return in.readAllBytes();
    }
  }

  /** The claim status of the record's first device, as the codec hands it on (compact JSON). */
  static final String STATUS =
      "{\"conditions\":[{\"type\":\"Ready\",\"status\":\"True\",\"reason\":\"Ok\","
          + "\"message\":\"ready\"}],\"data\":{\"uuid\":\"GPU-0\"}}";

  /** The record of the fixtures v1-completed.json and v2-completed.json. */
  static ClaimCheckpoint v1Completed() {
    return new ClaimCheckpoint(
        ClaimRef.of("team-a", "train-job", UID),
        "gpu.example.com",
        PrepareState.PREPARE_COMPLETED,
        BOOT,
        Instant.parse("2026-03-01T10:15:30.123456789Z"),
        Instant.parse("2026-03-01T10:15:31Z"),
        List.of(
            new CheckpointDevice(
                "gpu",
                "node-1",
                "gpu-0",
                Optional.empty(),
                false,
                List.of("k8s.gpu.example.com/claim=" + UID + "-gpu-0"),
                Map.of("migUuid", "MIG-4f2e9d7c", "profile", "1g.10gb"),
                Optional.of(STATUS)),
            new CheckpointDevice(
                "shared",
                "node-1",
                "gpu-1",
                Optional.of("0a1b2c3d-aaaa-4000-8000-000000000000"),
                false,
                List.of("k8s.gpu.example.com/claim=" + UID + "-gpu-1-0a1b2c3d"),
                Map.of(),
                Optional.empty()),
            new CheckpointDevice(
                "monitor",
                "node-1",
                "gpu-2",
                Optional.empty(),
                true,
                List.of(),
                Map.of(),
                Optional.empty())));
  }

  @Test
  void readsTheCommittedV2Record() throws Exception {
    assertThat(CheckpointCodec.decode(fixture("v2-completed.json"))).isEqualTo(v1Completed());
  }

  @Test
  void theCurrentWriterProducesTheCommittedV2Form() throws Exception {
    assertThat(MAPPER.readTree(CheckpointCodec.encode(v1Completed())))
        .isEqualTo(MAPPER.readTree(fixture("v2-completed.json")));
  }

  @Test
  void aV1RecordIsMigratedTheStatusLeavesTheProvidersRecordedValues() throws Exception {
    // Format 1 kept the claim status as a JSON string under a reserved recorded key.
    assertThat(MAPPER.readTree(fixture("v1-completed.json")).at("/devices/0/recorded"))
        .anySatisfy(v -> assertThat(v.asText()).contains("\"Ready\""));
    ClaimCheckpoint read = CheckpointCodec.decode(fixture("v1-completed.json"));
    assertThat(read).isEqualTo(v1Completed());
    assertThat(read.devices().get(0).recorded()).doesNotContainKey(CheckpointCodec.V1_STATUS_KEY);
    // Written back, it is a format 2 record.
    assertThat(MAPPER.readTree(CheckpointCodec.encode(read)))
        .isEqualTo(MAPPER.readTree(fixture("v2-completed.json")));
  }

  @Test
  void aV1StatusThatIsNotJsonIsReportedWithItsField() throws Exception {
    byte[] broken =
        new String(fixture("v1-completed.json"), StandardCharsets.UTF_8)
            .replace("{\\\"conditions", "nope{\\\"conditions")
            .getBytes(StandardCharsets.UTF_8);
    assertThatThrownBy(() -> CheckpointCodec.decode(broken))
        .isInstanceOfSatisfying(
            CheckpointCodec.FormatException.class, e -> assertThat(e.corrupt).isTrue())
        .hasMessageContaining("devices[0].recorded.dra4j.io/status: not JSON");
  }

  @Test
  void optionalFieldsTakeTheirDefaults() throws Exception {
    ClaimCheckpoint r = CheckpointCodec.decode(fixture("v1-started-minimal.json"));
    assertThat(r.state()).isEqualTo(PrepareState.PREPARE_STARTED);
    assertThat(r.isCompleted()).isFalse();
    assertThat(r.devices())
        .containsExactly(
            new CheckpointDevice(
                "gpu",
                "node-1",
                "gpu-3",
                Optional.empty(),
                false,
                List.of(),
                Map.of(),
                Optional.empty()));
  }

  @Test
  void aNewerRecordWithUnknownFieldsIsReadForWhatThisVersionKnows() throws Exception {
    ClaimCheckpoint r = CheckpointCodec.decode(fixture("future-v3-extra-fields.json"));
    assertThat(r.claim())
        .isEqualTo(ClaimRef.of("team-c", "etl", "c0000000-0000-4000-8000-00000000000c"));
    assertThat(r.isCompleted()).isTrue();
    CheckpointDevice d = r.devices().get(0);
    assertThat(d.device()).isEqualTo("gpu-4");
    assertThat(d.cdiDeviceIds())
        .containsExactly("k8s.gpu.example.com/claim=c0000000-0000-4000-8000-00000000000c-gpu-4");
    assertThat(d.recorded()).containsExactly(Map.entry("partition", "p-17"));
  }

  @Test
  void aRecordThatNeedsANewerReaderIsRefusedNotMisread() {
    assertThatThrownBy(() -> CheckpointCodec.decode(fixture("future-v3-needs-newer-reader.json")))
        .isInstanceOfSatisfying(
            CheckpointCodec.FormatException.class, e -> assertThat(e.corrupt).isFalse())
        .hasMessageContaining("needs a reader of version 3 or newer");
  }

  @Test
  void convertsToWhatUnprepareGets() {
    PreparedClaim p = v1Completed().toPreparedClaim();
    assertThat(p.completed()).isTrue();
    assertThat(p.claim().uid()).isEqualTo(UID);
    assertThat(p.devices())
        .containsExactly(
            RecordedDevice.of("gpu", "node-1", "gpu-0")
                .withRecorded(Map.of("migUuid", "MIG-4f2e9d7c", "profile", "1g.10gb")),
            RecordedDevice.of("shared", "node-1", "gpu-1")
                .withShareId("0a1b2c3d-aaaa-4000-8000-000000000000"),
            RecordedDevice.of("monitor", "node-1", "gpu-2"));
    assertThat(v1Completed().cdiDeviceIds()).hasSize(2);
    assertThat(v1Completed().devices().get(1).request()).isEqualTo("shared");
  }
}
