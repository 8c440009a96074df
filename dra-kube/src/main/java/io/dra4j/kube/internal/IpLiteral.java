package io.dra4j.kube.internal;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.Arrays;
import java.util.Optional;

/**
 * IP addresses as text, the one reader of them in dra4j: never a host name and never a DNS lookup
 * (the JDK's {@code InetAddress.getByName} looks up anything it cannot parse, {@code 999.1.1.1}
 * included), and Kubernetes' own rules where a field has one.
 *
 * <ul>
 *   <li>{@link #parse}: an address as Go's {@code net.ParseIP} reads it (what kubectl reads in a
 *       kubeconfig's server and a certificate's IP names): IPv4 in four decimal fields without
 *       leading zeros, or IPv6 (RFC 4291, an embedded IPv4 tail allowed, no zone), in brackets or
 *       not.
 *   <li>{@link #interfaceAddressProblem}: an address with its prefix length, the rule of a
 *       ResourceClaim's {@code status.devices[].networkData.ips} (kubernetes v1.37.2 {@code
 *       pkg/apis/resource/validation/validation.go:1866-1869}), apimachinery's {@code
 *       IsValidInterfaceAddress} (v0.37.2 {@code pkg/util/validation/ip.go:259-283}): read as
 *       {@code netutils.ParseCIDRSloppy} does (IPv4 fields may have leading zeros), then required
 *       to be written exactly as Go writes it back ({@link #canonical}), so {@code 2001:DB8::5/64},
 *       {@code 2001:db8:0:0:0:0:0:5/64} and {@code ::ffff:192.0.2.1/120} are refused as the API
 *       server refuses them.
 * </ul>
 */
public final class IpLiteral {
  private IpLiteral() {}

  /** The address {@code text} writes, or empty when it is not an IP address. */
  public static Optional<InetAddress> parse(String text) {
    String value =
        text.startsWith("[") && text.endsWith("]") ? text.substring(1, text.length() - 1) : text;
    byte[] bytes = bytes(value, false);
    if (bytes == null) {
      return Optional.empty();
    }
    try {
      return Optional.of(InetAddress.getByAddress(bytes));
    } catch (UnknownHostException e) {
      throw new IllegalStateException("4 or 16 bytes are always an address", e);
    }
  }

  /**
   * What is wrong with {@code value} as an interface address ({@code 192.0.2.5/24}), in the API
   * server's terms; empty when it is fine.
   */
  public static Optional<String> interfaceAddressProblem(String value) {
    int slash = value.indexOf('/');
    byte[] ip = slash < 0 ? null : bytes(value.substring(0, slash), true);
    String prefix = slash < 0 ? "" : value.substring(slash + 1);
    if (ip == null
        || prefix.isEmpty()
        || prefix.length() > 9
        || !prefix.chars().allMatch(IpLiteral::isDigit)
        || Integer.parseInt(prefix) > 8 * ip.length) {
      return Optional.of(
          "must be a valid address in CIDR form (e.g. 192.0.2.5/24 or 2001:db8::5/64)");
    }
    int bits = Integer.parseInt(prefix);
    if (isV4Mapped(ip) && bits > 32) {
      bits -= 96; // Go writes ::ffff:a.b.c.d as an IPv4 address, and a 128-bit mask with it
    }
    String canonical = canonical(ip) + "/" + bits;
    return canonical.equals(value)
        ? Optional.empty()
        : Optional.of("must be in canonical form (\"" + canonical + "\")");
  }

  /**
   * The address as Go's {@code net.IP.String} writes it: dotted decimal for IPv4 and IPv4-mapped
   * IPv6, otherwise RFC 5952 (lower-case hexadecimal without leading zeros, the longest run of two
   * or more zero groups, the first of equals, as {@code ::}).
   */
  static String canonical(byte[] ip) {
    if (ip.length == 4 || isV4Mapped(ip)) {
      int o = ip.length - 4;
      return (ip[o] & 0xff)
          + "."
          + (ip[o + 1] & 0xff)
          + "."
          + (ip[o + 2] & 0xff)
          + "."
          + (ip[o + 3] & 0xff);
    }
    int[] groups = new int[8];
    for (int i = 0; i < 8; i++) {
      groups[i] = ((ip[2 * i] & 0xff) << 8) | (ip[2 * i + 1] & 0xff);
    }
    int bestStart = -1;
    int bestLength = 1;
    for (int i = 0; i < 8; ) {
      int j = i;
      while (j < 8 && groups[j] == 0) {
        j++;
      }
      if (j - i > bestLength) {
        bestStart = i;
        bestLength = j - i;
      }
      i = j == i ? i + 1 : j;
    }
    StringBuilder b = new StringBuilder();
    for (int i = 0; i < 8; i++) {
      if (i == bestStart) {
        b.append("::");
        i += bestLength - 1;
        continue;
      }
      if (b.length() > 0 && b.charAt(b.length() - 1) != ':') {
        b.append(':');
      }
      b.append(Integer.toHexString(groups[i]));
    }
    return b.toString();
  }

  private static boolean isDigit(int c) {
    return c >= '0' && c <= '9';
  }

  private static boolean isHexDigit(char c) {
    return isDigit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
  }

  private static boolean isV4Mapped(byte[] ip) {
    if (ip.length != 16) {
      return false;
    }
    for (int i = 0; i < 10; i++) {
      if (ip[i] != 0) {
        return false;
      }
    }
    return ip[10] == (byte) 0xff && ip[11] == (byte) 0xff;
  }

  /**
   * The 4 or 16 bytes of an address, or null.
   *
   * @param sloppy IPv4 fields may have leading zeros, read as decimal ({@code
   *     netutils.ParseIPSloppy}); otherwise they may not ({@code net.ParseIP})
   */
  static byte[] bytes(String text, boolean sloppy) {
    return text.indexOf(':') < 0 ? v4(text, sloppy) : v6(text, sloppy);
  }

  private static byte[] v4(String text, boolean sloppy) {
    String[] fields = text.split("\\.", -1);
    if (fields.length != 4) {
      return null;
    }
    byte[] out = new byte[4];
    for (int i = 0; i < 4; i++) {
      String f = fields[i];
      if (f.isEmpty()
          || f.length() > (sloppy ? 10 : 3)
          || !f.chars().allMatch(IpLiteral::isDigit)
          || (!sloppy && f.length() > 1 && f.charAt(0) == '0')) {
        return null;
      }
      long v = Long.parseLong(f);
      if (v > 255) {
        return null;
      }
      out[i] = (byte) v;
    }
    return out;
  }

  private static byte[] v6(String text, boolean sloppy) {
    byte[] out = new byte[16];
    int ellipsis = -1; // where "::" stands, in bytes
    int at = 0; // the next byte to fill
    int i = 0;
    if (text.startsWith("::")) {
      ellipsis = 0;
      i = 2;
      if (i == text.length()) {
        return out;
      }
    }
    while (at < 16) {
      int end = i;
      while (end < text.length() && isHexDigit(text.charAt(end))) {
        end++;
      }
      if (end < text.length() && text.charAt(end) == '.') {
        // The IPv4 tail: the rest of the text, in the last four bytes.
        if (at > 12) {
          return null;
        }
        byte[] v4 = v4(text.substring(i), sloppy);
        if (v4 == null) {
          return null;
        }
        System.arraycopy(v4, 0, out, at, 4);
        at += 4;
        i = text.length();
        break;
      }
      if (end == i || end - i > 4) {
        return null;
      }
      int group = Integer.parseInt(text.substring(i, end), 16);
      out[at++] = (byte) (group >> 8);
      out[at++] = (byte) group;
      i = end;
      if (i == text.length()) {
        break;
      }
      if (text.charAt(i) != ':' || i + 1 == text.length()) {
        return null; // a zone, a stray character, or a single trailing colon
      }
      i++;
      if (text.charAt(i) == ':') {
        if (ellipsis >= 0) {
          return null; // "::" twice
        }
        ellipsis = at;
        i++;
        if (i == text.length()) {
          break;
        }
      }
    }
    if (i != text.length()) {
      return null;
    }
    if (ellipsis < 0) {
      return at == 16 ? out : null;
    }
    if (at == 16) {
      return null; // "::" must stand for at least one group of zeros
    }
    int n = at - ellipsis;
    System.arraycopy(out, ellipsis, out, 16 - n, n);
    Arrays.fill(out, ellipsis, 16 - n, (byte) 0);
    return out;
  }
}
