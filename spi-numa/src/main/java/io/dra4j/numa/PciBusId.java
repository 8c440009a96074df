package io.dra4j.numa;

import java.util.Locale;
import java.util.Objects;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A PCI address in the extended BDF form that {@code resource.kubernetes.io/pciBusID} requires:
 * {@code dddd:bb:dd.f}, lower-case hex, e.g. {@code 0000:3b:00.0}.
 *
 * @param value the canonical form
 */
public record PciBusId(String value) {

  /** The standard's pattern, applied after lower-casing. */
  public static final Pattern PATTERN =
      Pattern.compile("^[0-9a-f]{4}:[0-9a-f]{2}:[0-9a-f]{2}\\.[0-9a-f]$");

  /** NVML's form has an 8-digit domain ({@code 00000000:3B:00.0}); leading zeros are dropped. */
  private static final Pattern LONG_DOMAIN =
      Pattern.compile("^0{4}([0-9a-f]{4}:[0-9a-f]{2}:[0-9a-f]{2}\\.[0-9a-f])$");

  public PciBusId {
    Objects.requireNonNull(value, "pciBusID");
    if (!PATTERN.matcher(value).matches()) {
      throw new IllegalArgumentException(
          "pciBusID \"" + value + "\" must match " + PATTERN.pattern() + " (e.g. 0000:3b:00.0)");
    }
  }

  /**
   * Parses an address as providers and tools print it: upper or lower case, and NVML's 8-digit
   * domain when its upper four digits are zero. The result is canonical.
   *
   * @throws IllegalArgumentException naming the value and the rule when it is not a PCI address in
   *     the standard form (a domain above {@code ffff}, such as VMD's {@code 10000}, cannot be
   *     expressed in it)
   */
  public static PciBusId parse(String text) {
    Objects.requireNonNull(text, "pciBusID");
    String lower = text.strip().toLowerCase(Locale.ROOT);
    Matcher m = LONG_DOMAIN.matcher(lower);
    return new PciBusId(m.matches() ? m.group(1) : lower);
  }

  /** The domain, e.g. {@code 0000}. */
  public String domain() {
    return value.substring(0, 4);
  }

  /** The bus, e.g. {@code 3b}. */
  public String bus() {
    return value.substring(5, 7);
  }

  @Override
  public String toString() {
    return value;
  }
}
