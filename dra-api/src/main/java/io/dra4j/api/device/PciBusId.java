package io.dra4j.api.device;

import java.util.Locale;
import java.util.Objects;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A PCI address in the extended BDF form that {@code resource.kubernetes.io/pciBusID} requires:
 * {@code dddd:bb:dd.f}, lower-case hex, e.g. {@code 0000:3b:00.0}. The one PCI address type of
 * dra4j: providers parse what their tools print with {@link #parse}, the topology enricher reads
 * sysfs names with it, and the runtime's slice validator checks published values against {@link
 * #PATTERN}.
 */
public final class PciBusId {

  /** The standard's pattern; a published {@code pciBusID} must match it as it is. */
  public static final Pattern PATTERN =
      Pattern.compile("^[0-9a-f]{4}:[0-9a-f]{2}:[0-9a-f]{2}\\.[0-9a-f]$");

  /**
   * What tools print: a domain of one to eight hex digits (NVML prints eight, {@code
   * 00000000:3B:00.0}; lspci may print none of the leading zeros), any case.
   */
  private static final Pattern LOOSE =
      Pattern.compile("^([0-9a-f]{1,8}):([0-9a-f]{2}:[0-9a-f]{2}\\.[0-9a-f])$");

  private final String value;

  private PciBusId(String value) {
    if (!PATTERN.matcher(value).matches()) {
      throw new IllegalArgumentException(
          "pciBusID \"" + value + "\" must match " + PATTERN.pattern() + " (e.g. 0000:3b:00.0)");
    }
    this.value = value;
  }

  /**
   * Parses an address as providers and tools print it: upper or lower case, and a domain of one to
   * eight digits whose value fits in four ({@code 00000000:3B:00.0}, {@code 0:3b:00.0}). The result
   * is canonical.
   *
   * @throws IllegalArgumentException naming the value and the rule when it is not a PCI address in
   *     the standard form (a domain above {@code ffff}, such as VMD's {@code 10000}, cannot be
   *     expressed in it)
   */
  public static PciBusId parse(String text) {
    Objects.requireNonNull(text, "pciBusID");
    String lower = text.strip().toLowerCase(Locale.ROOT);
    Matcher m = LOOSE.matcher(lower);
    if (m.matches()) {
      long domain = Long.parseLong(m.group(1), 16);
      if (domain <= 0xffff) {
        return new PciBusId(String.format(Locale.ROOT, "%04x:%s", domain, m.group(2)));
      }
    }
    return new PciBusId(lower);
  }

  /** Whether {@code text} is a PCI address in the canonical form, as it is. */
  public static boolean isCanonical(String text) {
    return PATTERN.matcher(text).matches();
  }

  /** The canonical form, e.g. {@code 0000:3b:00.0}. */
  public String value() {
    return value;
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
  public boolean equals(Object o) {
    return o instanceof PciBusId p && value.equals(p.value);
  }

  @Override
  public int hashCode() {
    return value.hashCode();
  }

  @Override
  public String toString() {
    return value;
  }
}
