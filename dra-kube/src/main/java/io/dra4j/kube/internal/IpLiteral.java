package io.dra4j.kube.internal;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * An IP address as written, IPv4 or IPv6 (brackets allowed), never a host name and never a DNS
 * lookup: the JDK's {@code InetAddress.getByName} looks up anything it cannot parse, {@code
 * 999.1.1.1} included, so only text that is an address reaches it.
 */
public final class IpLiteral {
  private static final Pattern IPV4 =
      Pattern.compile("(\\d{1,3})\\.(\\d{1,3})\\.(\\d{1,3})\\.(\\d{1,3})");
  // Only hex digits, colons and an embedded IPv4 part: InetAddress parses it without a lookup.
  private static final Pattern IPV6 = Pattern.compile("[0-9A-Fa-f:.]*:[0-9A-Fa-f:.]*");

  private IpLiteral() {}

  /** The address {@code text} writes, or empty when it is not an IP address. */
  public static Optional<InetAddress> parse(String text) {
    String value =
        text.startsWith("[") && text.endsWith("]") ? text.substring(1, text.length() - 1) : text;
    Matcher v4 = IPV4.matcher(value);
    if (v4.matches()) {
      for (int i = 1; i <= 4; i++) {
        if (Integer.parseInt(v4.group(i)) > 255) {
          return Optional.empty();
        }
      }
    } else if (!IPV6.matcher(value).matches()) {
      return Optional.empty();
    }
    try {
      return Optional.of(InetAddress.getByName(value));
    } catch (UnknownHostException e) {
      return Optional.empty(); // an IPv6 shape that is no address after all
    }
  }
}
