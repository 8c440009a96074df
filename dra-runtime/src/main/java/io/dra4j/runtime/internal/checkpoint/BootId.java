package io.dra4j.runtime.internal.checkpoint;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The Linux boot id, a random UUID the kernel picks at every boot: a checkpoint written under
 * another boot id describes devices that a reboot has reset.
 */
public final class BootId {
  /** Where Linux exposes the boot id. */
  public static final Path DEFAULT_FILE = Path.of("/proc/sys/kernel/random/boot_id");

  private BootId() {}

  /** Reads the boot id from {@code file} (trimmed). */
  public static String read(Path file) throws IOException {
    String id = Files.readString(file, StandardCharsets.US_ASCII).trim();
    if (id.isEmpty()) {
      throw new IOException("boot id file " + file + " is empty");
    }
    return id;
  }
}
