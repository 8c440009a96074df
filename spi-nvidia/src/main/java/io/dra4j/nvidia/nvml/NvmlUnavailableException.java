package io.dra4j.nvidia.nvml;

import java.util.List;

/**
 * {@code libnvidia-ml.so.1} could not be loaded. The message names every location tried, so a wrong
 * {@code driver-root} is obvious from the log alone.
 */
public class NvmlUnavailableException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  private final List<String> tried;

  public NvmlUnavailableException(String message, List<String> tried, Throwable cause) {
    super(message, cause);
    this.tried = List.copyOf(tried);
  }

  /** The locations tried, in order. */
  public List<String> tried() {
    return tried;
  }
}
