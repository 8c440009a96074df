package io.dra4j.nvidia;

import java.math.BigInteger;
import java.util.regex.Pattern;

/**
 * Turns NVIDIA's version numbers into the strict semantic versions a {@code version} attribute must
 * hold (MAJOR.MINOR.PATCH, no leading zeros): the API server rejects anything else, and the whole
 * slice with it.
 */
final class Versions {
  private Versions() {}

  private static final Pattern DOTTED = Pattern.compile("[0-9]+(\\.[0-9]+){0,2}");

  /** A strict semantic version 2.0.0 (with optional pre-release and build parts). */
  static final Pattern SEMVER =
      Pattern.compile(
          "(0|[1-9][0-9]*)\\.(0|[1-9][0-9]*)\\.(0|[1-9][0-9]*)"
              + "(-((0|[1-9][0-9]*|[0-9]*[A-Za-z-][0-9A-Za-z-]*)"
              + "(\\.(0|[1-9][0-9]*|[0-9]*[A-Za-z-][0-9A-Za-z-]*))*))?"
              + "(\\+[0-9A-Za-z-]+(\\.[0-9A-Za-z-]+)*)?");

  /** The API limit on string and version attribute values, in bytes. */
  static final int MAX_VALUE_BYTES = 64;

  /**
   * A driver version such as {@code 550.54.15}, {@code 550.54} or {@code 535.104.05} as {@code
   * 550.54.15}, {@code 550.54.0}, {@code 535.104.5}: missing parts become 0 and leading zeros
   * (which semver forbids) are dropped.
   *
   * @throws IllegalArgumentException when the text is not one to three dot-separated numbers
   */
  static String driverVersion(String text) {
    String t = text.trim();
    if (!DOTTED.matcher(t).matches()) {
      throw new IllegalArgumentException(
          "driver version \"" + text + "\" is not one to three dot-separated numbers");
    }
    String[] parts = t.split("\\.");
    StringBuilder sb = new StringBuilder();
    for (int i = 0; i < 3; i++) {
      if (i > 0) {
        sb.append('.');
      }
      sb.append(i < parts.length ? new BigInteger(parts[i]).toString() : "0");
    }
    return checked(sb.toString(), text);
  }

  /**
   * A CUDA driver version as NVML encodes it ({@code major * 1000 + minor * 10}), e.g. 12040 as
   * {@code 12.4.0}.
   *
   * @throws IllegalArgumentException when the number is not positive
   */
  static String cudaVersion(int encoded) {
    if (encoded <= 0) {
      throw new IllegalArgumentException(
          "CUDA driver version " + encoded + " is not a positive NVML version number");
    }
    return checked(
        (encoded / 1000) + "." + (encoded % 1000) / 10 + "." + encoded % 10,
        Integer.toString(encoded));
  }

  /** A compute capability such as 9.0 as {@code 9.0.0}. */
  static String computeCapability(int major, int minor) {
    if (major < 0 || minor < 0) {
      throw new IllegalArgumentException(
          "compute capability " + major + "." + minor + " has a negative part");
    }
    return checked(major + "." + minor + ".0", major + "." + minor);
  }

  private static String checked(String semver, String source) {
    if (!SEMVER.matcher(semver).matches() || semver.length() > MAX_VALUE_BYTES) {
      throw new IllegalArgumentException(
          "\"" + source + "\" does not give a valid semantic version (got \"" + semver + "\")");
    }
    return semver;
  }
}
