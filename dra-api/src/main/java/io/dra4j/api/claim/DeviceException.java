package io.dra4j.api.claim;

/**
 * A provider's refusal or failure for one claim. The message reaches the kubelet (and so the pod's
 * events) after the claim's name, which the runtime puts in front: name the device and say what is
 * wrong, e.g. {@code device node-1/gpu-9 is not a device of this node}, not the claim again.
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
