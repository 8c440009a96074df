package io.dra4j.runtime.internal.claims;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import io.dra4j.api.status.Condition;
import io.dra4j.api.status.DeviceStatus;
import io.dra4j.api.status.NetworkDeviceData;
import io.dra4j.kube.AllocatedDeviceStatus;
import io.dra4j.kube.KubeJson;
import io.dra4j.kube.KubeNames;
import io.dra4j.kube.internal.IpLiteral;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * Claim status (KEP-4817) for one device: the API server's limits on {@code status.devices[]},
 * checked before anything is written, and the wire form with condition times. Pure.
 */
final class DeviceStatuses {

  static final int MAX_CONDITIONS = 8;
  static final int MAX_MESSAGE = 32768;
  static final int MAX_DATA = 10 * 1024;
  static final int MAX_INTERFACE_NAME = 256;
  static final int MAX_HARDWARE_ADDRESS = 128;
  static final int MAX_IPS = 16;

  // metav1.Condition's reason (apimachinery v0.37.2 pkg/apis/meta/v1/validation/validation.go).
  private static final Pattern REASON = Pattern.compile("[A-Za-z]([A-Za-z0-9_,:]*[A-Za-z0-9_])?");

  private DeviceStatuses() {}

  /** Whether {@code reason} is a valid condition reason. */
  static boolean isReason(String reason) {
    return reason.length() <= 1024 && REASON.matcher(reason).matches();
  }

  /**
   * Checks a provider's status of one device.
   *
   * @param device {@code pool/device}, for messages
   * @throws IllegalArgumentException naming the device, the field and the limit
   */
  static void validate(String device, DeviceStatus s) {
    String at = "status of device " + device + ": ";
    if (s.conditions().size() > MAX_CONDITIONS) {
      throw new IllegalArgumentException(
          at + "conditions: " + s.conditions().size() + " conditions, at most " + MAX_CONDITIONS);
    }
    Set<String> types = new HashSet<>();
    for (int i = 0; i < s.conditions().size(); i++) {
      Condition c = s.conditions().get(i);
      String ci = at + "conditions[" + i + "]";
      // A label name, as metav1 validates a condition's type (validation.go:342-350).
      List<String> typeProblems = KubeNames.qualifiedName(c.type());
      if (!typeProblems.isEmpty()) {
        throw new IllegalArgumentException(
            ci
                + ".type \""
                + c.type()
                + "\" "
                + String.join("; ", typeProblems)
                + " (e.g. Ready, example.com/Configured)");
      }
      if (!types.add(c.type())) {
        throw new IllegalArgumentException(ci + ".type \"" + c.type() + "\" appears twice");
      }
      if (!c.status().equals("True")
          && !c.status().equals("False")
          && !c.status().equals("Unknown")) {
        throw new IllegalArgumentException(
            ci + ".status \"" + c.status() + "\" must be True, False or Unknown");
      }
      if (c.reason().length() > 1024 || !REASON.matcher(c.reason()).matches()) {
        throw new IllegalArgumentException(
            ci
                + ".reason \""
                + c.reason()
                + "\" must be a non-empty CamelCase word (letters, digits, '_', ',' or ':',"
                + " starting with a letter), at most 1024 characters");
      }
      if (c.message().length() > MAX_MESSAGE) {
        throw new IllegalArgumentException(
            ci + ".message: " + c.message().length() + " characters, at most " + MAX_MESSAGE);
      }
    }
    if (!s.data().isEmpty()) {
      int size;
      try {
        size = KubeJson.mapper().writeValueAsBytes(s.data()).length;
      } catch (JsonProcessingException e) {
        throw new IllegalArgumentException(at + "data cannot be serialized as JSON: " + e, e);
      }
      if (size > MAX_DATA) {
        throw new IllegalArgumentException(
            at + "data: " + size + " bytes of JSON, at most " + MAX_DATA);
      }
    }
    if (s.networkData().isPresent()) {
      validateNetwork(at, s.networkData().get());
    }
  }

  private static void validateNetwork(String at, NetworkDeviceData n) {
    int nameBytes = n.interfaceName().getBytes(StandardCharsets.UTF_8).length;
    if (nameBytes > MAX_INTERFACE_NAME) {
      throw new IllegalArgumentException(
          at + "networkData.interfaceName: " + nameBytes + " bytes, at most " + MAX_INTERFACE_NAME);
    }
    int hwBytes = n.hardwareAddress().getBytes(StandardCharsets.UTF_8).length;
    if (hwBytes > MAX_HARDWARE_ADDRESS) {
      throw new IllegalArgumentException(
          at
              + "networkData.hardwareAddress: "
              + hwBytes
              + " bytes, at most "
              + MAX_HARDWARE_ADDRESS);
    }
    if (n.ips().size() > MAX_IPS) {
      throw new IllegalArgumentException(
          at + "networkData.ips: " + n.ips().size() + " addresses, at most " + MAX_IPS);
    }
    Set<String> seen = new HashSet<>();
    for (int i = 0; i < n.ips().size(); i++) {
      String ip = n.ips().get(i);
      Optional<String> problem = IpLiteral.interfaceAddressProblem(ip);
      if (problem.isPresent()) {
        throw new IllegalArgumentException(
            at + "networkData.ips[" + i + "] \"" + ip + "\" " + problem.get());
      }
      // Valid addresses are canonical: the same address is the same text.
      if (!seen.add(ip)) {
        throw new IllegalArgumentException(
            at + "networkData.ips[" + i + "] \"" + ip + "\" is listed twice");
      }
    }
  }

  /**
   * The {@code status.devices[]} entry of one device, with each condition's {@code
   * lastTransitionTime} kept from {@code previous} when its status did not change and {@code now}
   * otherwise (the metav1.Condition rule).
   */
  static AllocatedDeviceStatus toWire(
      String driver,
      String pool,
      String device,
      Optional<String> shareId,
      DeviceStatus s,
      Optional<AllocatedDeviceStatus> previous,
      Instant now) {
    List<io.dra4j.kube.Condition> conditions = new ArrayList<>();
    for (Condition c : s.conditions()) {
      io.dra4j.kube.Condition wire = io.dra4j.kube.Condition.from(c, now);
      if (previous.isPresent()) {
        for (io.dra4j.kube.Condition p : previous.get().conditions()) {
          if (p.type().equals(c.type())
              && p.status().equals(c.status())
              && !p.lastTransitionTime().isEmpty()) {
            wire =
                new io.dra4j.kube.Condition(
                    wire.type(),
                    wire.status(),
                    wire.observedGeneration(),
                    p.lastTransitionTime(),
                    wire.reason(),
                    wire.message(),
                    null);
          }
        }
      }
      conditions.add(wire);
    }
    Optional<JsonNode> data =
        s.data().isEmpty()
            ? Optional.empty()
            : Optional.of(KubeJson.mapper().valueToTree(s.data()));
    return new AllocatedDeviceStatus(
        driver, pool, device, shareId, conditions, data, s.networkData(), null);
  }

  /** The status as stored in the checkpoint. */
  static String encode(DeviceStatus s) {
    try {
      return KubeJson.mapper().writeValueAsString(s);
    } catch (JsonProcessingException e) {
      throw new IllegalArgumentException("device status cannot be serialized: " + e, e);
    }
  }

  static DeviceStatus decode(String json) throws JsonProcessingException {
    return KubeJson.mapper().readValue(json, DeviceStatus.class);
  }

  /** For messages. */
  static String describe(Map<String, ?> m) {
    return m.keySet().toString();
  }
}
