package io.dra4j.api.device;

import com.fasterxml.jackson.annotation.JsonValue;
import java.util.Optional;

/**
 * The effects of a device taint that this version of dra4j knows. The API may add effects: a taint
 * read from the server keeps the spelling it came with ({@link DeviceTaint#effectName()}) and acts
 * as {@link #NONE} here, as the API tells consumers to treat an unknown effect.
 */
public enum TaintEffect {
  /** Informational only (Kubernetes 1.35+): a dry run that neither blocks nor evicts. */
  NONE("None"),
  /** New claims may not be allocated the device unless they tolerate the taint. */
  NO_SCHEDULE("NoSchedule"),
  /** Like NO_SCHEDULE, and pods using the device are evicted unless they tolerate it. */
  NO_EXECUTE("NoExecute");

  private final String apiName;

  TaintEffect(String apiName) {
    this.apiName = apiName;
  }

  /** The spelling used by the API, e.g. {@code NoSchedule}. */
  @JsonValue
  public String apiName() {
    return apiName;
  }

  /** The known effect with this API spelling, if there is one. */
  public static Optional<TaintEffect> find(String apiName) {
    for (TaintEffect e : values()) {
      if (e.apiName.equals(apiName)) {
        return Optional.of(e);
      }
    }
    return Optional.empty();
  }

  /**
   * Parses a setting's value: the API spelling or the constant's name in any case ({@code
   * no_schedule}).
   *
   * @throws IllegalArgumentException for a value that names no known effect: a driver's own setting
   *     must not guess
   */
  public static TaintEffect fromApiName(String name) {
    for (TaintEffect e : values()) {
      if (e.apiName.equals(name) || e.name().equalsIgnoreCase(name)) {
        return e;
      }
    }
    throw new IllegalArgumentException(
        "unknown taint effect \"" + name + "\": must be None, NoSchedule or NoExecute");
  }
}
