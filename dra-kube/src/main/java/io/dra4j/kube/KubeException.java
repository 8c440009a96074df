package io.dra4j.kube;

/**
 * A failed API call: the HTTP status (0 when no response arrived) and the API server's {@code
 * Status} reason and message.
 */
public class KubeException extends Exception {
  private static final long serialVersionUID = 1L;

  private final int status;
  private final String reason;

  public KubeException(int status, String reason, String message) {
    super(message);
    this.status = status;
    this.reason = reason == null ? "" : reason;
  }

  public KubeException(int status, String reason, String message, Throwable cause) {
    super(message, cause);
    this.status = status;
    this.reason = reason == null ? "" : reason;
  }

  /** HTTP status; 0 when the request never got a response (connection refused, timeout). */
  public int status() {
    return status;
  }

  /** The {@code Status.reason}, e.g. {@code NotFound}, {@code Conflict}, {@code Expired}. */
  public String reason() {
    return reason;
  }

  public boolean isNotFound() {
    return status == 404;
  }

  public boolean isConflict() {
    return status == 409;
  }

  public boolean isGone() {
    return status == 410;
  }

  public boolean isAlreadyExists() {
    return status == 409 && "AlreadyExists".equals(reason);
  }

  /**
   * For a refusal a platform engineer fixes (401, 403), what to check, as a parenthesis to append
   * to the error's line; otherwise empty. The one wording of these hints for every API caller.
   *
   * @param access what the driver was refused, e.g. {@code "write ResourceSlices"}
   */
  public String whatToCheck(String access) {
    return switch (status) {
      case 401 ->
          " (the API server does not accept the driver's credentials: check its kubeconfig or"
              + " ServiceAccount token)";
      case 403 ->
          " (the driver's ServiceAccount may not "
              + access
              + ": check the ClusterRole and binding of its chart or deploy/ folder)";
      default -> "";
    };
  }
}
