package io.dra4j.cel;

import dev.cel.runtime.CelEvaluationException;
import dev.cel.runtime.CelRuntime;
import io.dra4j.api.device.Device;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A compiled CEL device selector. Immutable and thread-safe: any number of threads may evaluate the
 * same instance at once. Obtain instances from {@link CelSelectors#compile(String)}.
 */
public final class CompiledSelector {

  private static final Pattern OFFSET = Pattern.compile("^evaluation error at <input>:(\\d+): ");

  private final String expression;
  private final CelRuntime.Program program;
  private final long costLimit;

  CompiledSelector(String expression, CelRuntime.Program program, long costLimit) {
    this.expression = expression;
    this.program = program;
    this.costLimit = costLimit;
  }

  /** The expression as written. */
  public String expression() {
    return expression;
  }

  /**
   * Whether the device of this driver satisfies the selector.
   *
   * @throws SelectorEvaluationException when the selector fails for this device (for example it
   *     reads an attribute the device does not have); Kubernetes then fails the claim rather than
   *     skipping the device
   */
  public boolean matches(String driver, Device device) {
    return matches(CelDevice.of(driver, device));
  }

  /**
   * Like {@link #matches(String, Device)} for a prepared view; build the view once when several
   * selectors are evaluated against the same device.
   *
   * @throws SelectorEvaluationException when the selector fails for this device
   */
  public boolean matches(CelDevice device) {
    if (device.problem().isPresent()) {
      throw failure(device, device.problem().get(), false, null);
    }
    CostTracker cost = new CostTracker(costLimit);
    Object result;
    try {
      result = program.trace(device.activation(), cost);
    } catch (CelEvaluationException e) {
      if (cost.exceeded() || e.getCause() instanceof CostTracker.LimitExceeded) {
        throw costFailure(device, e);
      }
      throw failure(device, describe(e), false, e);
    } catch (CostTracker.LimitExceeded e) {
      throw costFailure(device, e);
    } catch (RuntimeException e) {
      // Callers handle one exception type per device; nothing from the interpreter escapes raw.
      throw failure(device, "unexpected evaluation failure: " + e, false, e);
    }
    if (cost.exceeded()) {
      throw costFailure(device, null);
    }
    if (result instanceof Boolean b) {
      return b;
    }
    String type = result == null ? "null" : result.getClass().getSimpleName();
    throw failure(device, "the expression must evaluate to a bool, got " + type, false, null);
  }

  /**
   * Like {@link #matches(String, Device)}, but an evaluation error counts as "does not match". Only
   * for callers that ask "could this selector pick any of these devices" (the extended-resource
   * migration guard); an allocator must use {@link #matches} and report the error.
   */
  public boolean matchesTreatingErrorsAsNoMatch(String driver, Device device) {
    return matchesTreatingErrorsAsNoMatch(CelDevice.of(driver, device));
  }

  /** {@link #matchesTreatingErrorsAsNoMatch(String, Device)} for a prepared view. */
  public boolean matchesTreatingErrorsAsNoMatch(CelDevice device) {
    try {
      return matches(device);
    } catch (SelectorEvaluationException e) {
      return false;
    }
  }

  private SelectorEvaluationException costFailure(CelDevice device, Throwable cause) {
    return failure(
        device,
        "evaluation cost limit of " + costLimit + " exceeded (CELSelectorExpressionMaxCost)",
        true,
        cause);
  }

  private SelectorEvaluationException failure(
      CelDevice device, String reason, boolean costLimitExceeded, Throwable cause) {
    return new SelectorEvaluationException(
        expression, device.driver(), device.deviceName(), reason, costLimitExceeded, cause);
  }

  /** CEL's message with its character offset turned into line and column. */
  private String describe(CelEvaluationException e) {
    String message = e.getMessage() == null ? e.toString() : e.getMessage();
    Matcher m = OFFSET.matcher(message);
    if (!m.find()) {
      return message;
    }
    int offset = Integer.parseInt(m.group(1));
    int line = 1;
    int column = 1;
    for (int i = 0; i < offset && i < expression.length(); i++) {
      if (expression.charAt(i) == '\n') {
        line++;
        column = 1;
      } else {
        column++;
      }
    }
    return "at line " + line + ", column " + column + ": " + message.substring(m.end());
  }

  @Override
  public String toString() {
    return "CompiledSelector[" + expression + "]";
  }
}
