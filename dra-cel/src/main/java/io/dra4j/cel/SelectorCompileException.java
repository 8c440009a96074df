package io.dra4j.cel;

/**
 * A selector expression is not valid: a syntax error, a type error (for example {@code quantity(1)}
 * or a result that is not a bool), an unknown field of {@code device}, or a violation of the length
 * limit. Kubernetes rejects the same expressions when the object is created.
 */
public final class SelectorCompileException extends CelSelectorException {

  private static final long serialVersionUID = 1L;

  private final String reason;
  private final int line;
  private final int column;

  SelectorCompileException(String expression, String reason, int line, int column) {
    super(expression, message(expression, reason, line, column), null);
    this.reason = reason;
    this.line = line;
    this.column = column;
  }

  private static String message(String expression, String reason, int line, int column) {
    String where = line > 0 ? " at line " + line + ", column " + column : "";
    return "invalid CEL selector " + quote(expression) + where + ": " + reason;
  }

  /** What is wrong, without the expression (for CEL errors, CEL's own text with a caret). */
  public String reason() {
    return reason;
  }

  /** The 1-based line of the first error, or 0 when the error has no position (length limit). */
  public int line() {
    return line;
  }

  /** The 1-based column of the first error, or 0 when the error has no position. */
  public int column() {
    return column;
  }
}
