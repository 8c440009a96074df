package io.dra4j.cel;

/**
 * A selector failed while evaluating one device: a missing attribute ("no such key"), a failing
 * function (such as {@code quantity('bad')}), a result that is not a bool, an attribute value the
 * CEL view cannot represent, or the runtime cost limit.
 *
 * <p>Kubernetes treats this as an error of the claim (allocation aborts), not as "device does not
 * match"; callers should report it. {@link CompiledSelector#matchesTreatingErrorsAsNoMatch} exists
 * for the few callers that want the lenient reading.
 */
public final class SelectorEvaluationException extends CelSelectorException {

  private static final long serialVersionUID = 1L;

  private final String driver;
  private final String deviceName;
  private final String reason;
  private final boolean costLimitExceeded;

  SelectorEvaluationException(
      String expression,
      String driver,
      String deviceName,
      String reason,
      boolean costLimitExceeded,
      Throwable cause) {
    super(
        expression,
        "CEL selector "
            + quote(expression)
            + " failed for device \""
            + deviceName
            + "\" of driver \""
            + driver
            + "\": "
            + reason,
        cause);
    this.driver = driver;
    this.deviceName = deviceName;
    this.reason = reason;
    this.costLimitExceeded = costLimitExceeded;
  }

  /** The driver of the device being evaluated. */
  public String driver() {
    return driver;
  }

  /** The name of the device being evaluated. */
  public String deviceName() {
    return deviceName;
  }

  /** What went wrong, without the expression and device. */
  public String reason() {
    return reason;
  }

  /** Whether the evaluation was stopped by the cost limit ({@link CelSelectors#MAX_COST}). */
  public boolean costLimitExceeded() {
    return costLimitExceeded;
  }
}
