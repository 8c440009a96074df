package io.dra4j.runtime.internal.claims;

/** A failure of one claim; the message goes to the kubelet as that claim's error. */
final class ClaimException extends Exception {
  private static final long serialVersionUID = 1L;

  ClaimException(String message) {
    super(message);
  }

  ClaimException(String message, Throwable cause) {
    super(message, cause);
  }
}
