package io.dra4j.runtime.internal.checkpoint;

import static org.assertj.core.api.Assertions.assertThat;

import com.code_intelligence.jazzer.junit.FuzzTest;

/**
 * Checkpoint records as read from disk after a crash, a downgrade or corruption: any bytes either
 * decode to a record that encodes and decodes again to the same record, or are refused as a format
 * error, never another exception.
 */
class CheckpointFuzzTest {

  @FuzzTest
  void decode(byte[] input) throws Exception {
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
