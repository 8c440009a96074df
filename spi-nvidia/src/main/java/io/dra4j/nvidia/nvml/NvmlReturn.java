package io.dra4j.nvidia.nvml;

/**
 * The NVML return codes ({@code nvmlReturn_t}), named as in {@code nvml.h} without the {@code
 * NVML_ERROR_} prefix. Codes a newer driver may add map to {@link #UNRECOGNIZED}; {@link
 * NvmlException#rawCode()} keeps the number.
 */
public enum NvmlReturn {
  SUCCESS(0),
  UNINITIALIZED(1),
  INVALID_ARGUMENT(2),
  NOT_SUPPORTED(3),
  NO_PERMISSION(4),
  ALREADY_INITIALIZED(5),
  NOT_FOUND(6),
  INSUFFICIENT_SIZE(7),
  INSUFFICIENT_POWER(8),
  DRIVER_NOT_LOADED(9),
  TIMEOUT(10),
  IRQ_ISSUE(11),
  LIBRARY_NOT_FOUND(12),
  FUNCTION_NOT_FOUND(13),
  CORRUPTED_INFOROM(14),
  GPU_IS_LOST(15),
  RESET_REQUIRED(16),
  OPERATING_SYSTEM(17),
  LIB_RM_VERSION_MISMATCH(18),
  IN_USE(19),
  MEMORY(20),
  NO_DATA(21),
  VGPU_ECC_NOT_SUPPORTED(22),
  INSUFFICIENT_RESOURCES(23),
  FREQ_NOT_SUPPORTED(24),
  ARGUMENT_VERSION_MISMATCH(25),
  DEPRECATED(26),
  NOT_READY(27),
  GPU_NOT_FOUND(28),
  INVALID_STATE(29),
  RESET_TYPE_NOT_SUPPORTED(30),
  UNKNOWN(999),
  /** A code this version of dra4j does not know. */
  UNRECOGNIZED(-1);

  private final int code;

  NvmlReturn(int code) {
    this.code = code;
  }

  /** The numeric code, -1 for {@link #UNRECOGNIZED}. */
  public int code() {
    return code;
  }

  /** The constant for a numeric code; {@link #UNRECOGNIZED} for codes not listed here. */
  public static NvmlReturn of(int code) {
    for (NvmlReturn r : values()) {
      if (r.code == code && r != UNRECOGNIZED) {
        return r;
      }
    }
    return UNRECOGNIZED;
  }
}
