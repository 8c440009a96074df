package io.dra4j.api.device;

import com.fasterxml.jackson.annotation.JsonValue;

/** Effect of a device taint. */
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

  /** Parses the API spelling; consumers must treat unknown effects as None, so this does too. */
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
