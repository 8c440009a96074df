package io.dra4j.api.claim;

/**
 * A provider's refusal or failure for one claim. The message reaches the kubelet (and so the pod's
 * events) verbatim: name the device and say what is wrong.
 */
public class DeviceException extends Exception {
  private static final long serialVersionUID = 1L;

  public DeviceException(String message) {
    super(message);
  }

  public DeviceException(String message, Throwable cause) {
    super(message, cause);
  }
}
