package io.dra4j.runtime.checkpoint;

import static org.assertj.core.api.Assertions.assertThat;

import com.code_intelligence.jazzer.junit.FuzzTest;
import io.dra4j.runtime.testsupport.FuzzRuns;
import org.junit.jupiter.api.AfterAll;

/**
 * Checkpoint records as read from disk after a crash, a downgrade or corruption: any bytes either
 * decode to a record that encodes and decodes again to the same record, or are refused as a format
 * error, never another exception.
 */
class CheckpointFuzzTest {
  @AfterAll
  static void report() {
    FuzzRuns.report(CheckpointFuzzTest.class);
  }

  @FuzzTest
  void decode(byte[] input) throws Exception {
    FuzzRuns.count(CheckpointFuzzTest.class);
    ClaimCheckpoint record;
    try {
      record = CheckpointCodec.decode(input);
    } catch (CheckpointCodec.FormatException e) {
      assertThat(e.getMessage()).isNotBlank();
      return;
    }
    ClaimCheckpoint again = CheckpointCodec.decode(CheckpointCodec.encode(record));
    assertThat(again).isEqualTo(record);
  }
}
