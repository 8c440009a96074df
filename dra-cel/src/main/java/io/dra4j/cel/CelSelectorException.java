package io.dra4j.cel;

/**
 * A CEL device selector could not be compiled or evaluated. The message always names the
 * expression; see the two subclasses for the details each case carries.
 */
public abstract sealed class CelSelectorException extends RuntimeException
    permits SelectorCompileException, SelectorEvaluationException {

  private static final long serialVersionUID = 1L;

  private final String expression;

  CelSelectorException(String expression, String message, Throwable cause) {
    super(message, cause);
    this.expression = expression;
  }

  /** The selector expression as written. */
  public String expression() {
    return expression;
  }

  /** The expression shortened for messages: a 10 KiB selector should not flood a log line. */
  static String quote(String expression) {
    String oneLine = expression.replace('\n', ' ');
    if (oneLine.length() > 200) {
      oneLine = oneLine.substring(0, 197) + "...";
    }
    return "\"" + oneLine + "\"";
  }
}
