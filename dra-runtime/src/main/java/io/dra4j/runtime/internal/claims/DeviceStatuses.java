package io.dra4j.runtime.internal.claims;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import io.dra4j.api.status.Condition;
import io.dra4j.api.status.DeviceStatus;
import io.dra4j.api.status.NetworkDeviceData;
import io.dra4j.kube.AllocatedDeviceStatus;
import io.dra4j.kube.KubeJson;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
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

  // metav1.Condition: type is a qualified name, reason CamelCase-ish (validation in apimachinery).
  private static final Pattern CONDITION_TYPE =
      Pattern.compile(
          "([a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*/)?"
              + "([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]");
  private static final Pattern REASON = Pattern.compile("[A-Za-z]([A-Za-z0-9_,:]*[A-Za-z0-9_])?");
  private static final Pattern IPV4 =
      Pattern.compile("(0|[1-9][0-9]{0,2})(\\.(0|[1-9][0-9]{0,2})){3}");
  private static final Pattern IPV6_CHARS = Pattern.compile("[0-9A-Fa-f:.]+");

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
      if (c.type().length() > 316 || !CONDITION_TYPE.matcher(c.type()).matches()) {
        throw new IllegalArgumentException(
            ci
                + ".type \""
                + c.type()
                + "\" must be a CamelCase name, optionally with a DNS-subdomain prefix"
                + " (e.g. Ready, example.com/Configured), at most 316 characters");
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
      String canonical = parseCidr(ip);
      if (canonical == null) {
        throw new IllegalArgumentException(
            at
                + "networkData.ips["
                + i
                + "] \""
                + ip
                + "\" is not an interface address in CIDR form (e.g. 192.0.2.5/24 or"
                + " 2001:db8::5/64)");
      }
      if (!seen.add(canonical)) {
        throw new IllegalArgumentException(
            at + "networkData.ips[" + i + "] \"" + ip + "\" is listed twice");
      }
    }
  }

  /**
   * The canonical {@code address/prefix}, or null when {@code s} is not an address in CIDR form.
   */
  static String parseCidr(String s) {
    int slash = s.indexOf('/');
    if (slash <= 0 || slash == s.length() - 1) {
      return null;
    }
    String addr = s.substring(0, slash);
    String prefix = s.substring(slash + 1);
    if (!prefix.matches("0|[1-9][0-9]{0,2}")) {
      return null;
    }
    int bits = Integer.parseInt(prefix);
    byte[] bytes;
    if (addr.indexOf(':') < 0) {
      if (!IPV4.matcher(addr).matches()) {
        return null;
      }
      String[] parts = addr.split("\\.");
      bytes = new byte[4];
      for (int i = 0; i < 4; i++) {
        int v = Integer.parseInt(parts[i]);
        if (v > 255) {
          return null;
        }
        bytes[i] = (byte) v;
      }
      if (bits > 32) {
        return null;
      }
    } else {
      if (!IPV6_CHARS.matcher(addr).matches()) {
        return null;
      }
      bytes = parseIpv6(addr);
      if (bytes == null || bits > 128) {
        return null;
      }
    }
    return new BigInteger(1, bytes).toString(16) + "/" + bytes.length + "/" + bits;
  }

  private static byte[] parseIpv6(String addr) {
    // Only literal addresses reach here (hex digits, ':' and '.'), so no name lookup can happen.
    String a = addr.toLowerCase(Locale.ROOT);
    int dc = a.indexOf("::");
    if (dc >= 0 && a.indexOf("::", dc + 1) >= 0) {
      return null;
    }
    List<Integer> head = new ArrayList<>();
    List<Integer> tail = new ArrayList<>();
    if (dc >= 0) {
      if (!groups(a.substring(0, dc), head, false) || !groups(a.substring(dc + 2), tail, true)) {
        return null;
      }
      if (head.size() + tail.size() > 7) {
        return null;
      }
    } else {
      if (!groups(a, head, true) || head.size() != 8) {
        return null;
      }
    }
    int[] words = new int[8];
    for (int i = 0; i < head.size(); i++) {
      words[i] = head.get(i);
    }
    for (int i = 0; i < tail.size(); i++) {
      words[8 - tail.size() + i] = tail.get(i);
    }
    byte[] b = new byte[16];
    for (int i = 0; i < 8; i++) {
      b[2 * i] = (byte) (words[i] >> 8);
      b[2 * i + 1] = (byte) words[i];
    }
    return b;
  }

  private static boolean groups(String s, List<Integer> out, boolean allowV4Tail) {
    if (s.isEmpty()) {
      return true;
    }
    String[] parts = s.split(":", -1);
    for (int i = 0; i < parts.length; i++) {
      String p = parts[i];
      if (allowV4Tail && i == parts.length - 1 && p.indexOf('.') >= 0) {
        if (!IPV4.matcher(p).matches()) {
          return false;
        }
        String[] q = p.split("\\.");
        int[] v = new int[4];
        for (int k = 0; k < 4; k++) {
          v[k] = Integer.parseInt(q[k]);
          if (v[k] > 255) {
            return false;
          }
        }
        out.add((v[0] << 8) | v[1]);
        out.add((v[2] << 8) | v[3]);
        continue;
      }
      if (p.isEmpty() || p.length() > 4 || !p.matches("[0-9a-f]+")) {
        return false;
      }
      out.add(Integer.parseInt(p, 16));
    }
    return true;
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
