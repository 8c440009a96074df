package io.dra4j.nvidia.nvml;

/**
 * An NVML call returned an error. Carries the C function name and the return code, so a log line or
 * a claim error says exactly which call failed and why, e.g. {@code nvmlDeviceGetUUID failed:
 * GPU_IS_LOST (15): GPU is lost}.
 */
public class NvmlException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  private final String function;
  private final NvmlReturn code;
  private final int rawCode;

  public NvmlException(String function, int rawCode, String description) {
    super(
        function
            + " failed: "
            + NvmlReturn.of(rawCode).name()
            + " ("
            + rawCode
            + ")"
            + (description == null || description.isBlank() ? "" : ": " + description));
    this.function = function;
    this.code = NvmlReturn.of(rawCode);
    this.rawCode = rawCode;
  }

  /** The NVML C function that failed, e.g. {@code nvmlDeviceGetMemoryInfo}. */
  public String function() {
    return function;
  }

  /** The named return code. */
  public NvmlReturn code() {
    return code;
  }

  /** The numeric return code as NVML gave it. */
  public int rawCode() {
    return rawCode;
  }

  /** Whether the GPU fell off the bus or otherwise became inaccessible. */
  public boolean gpuLost() {
    return code == NvmlReturn.GPU_IS_LOST;
  }
}
