package io.dra4j.cel;

import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * A semantic version as defined by <a href="https://semver.org/spec/v2.0.0.html">SemVer 2.0.0</a>:
 * {@code MAJOR.MINOR.PATCH}, an optional pre-release ({@code -rc.1}) and optional build metadata
 * ({@code +build.5}).
 *
 * <p>This is the one semver implementation of the runtime: version attributes of devices are parsed
 * with it (CEL sees them as values of this type, see {@link CelSelectors}), and slice validation
 * uses {@link #isValid(String)} for the strict syntax the API server enforces.
 *
 * <p>Ordering and equality follow SemVer precedence (§11): build metadata is kept (and printed by
 * {@link #toString()}) but ignored by {@link #compareTo}, {@link #equals} and {@link #hashCode}, so
 * {@code 1.0.0+a} equals {@code 1.0.0+b}. This is also what Kubernetes' CEL {@code ==} does.
 *
 * @param major the major version, not negative
 * @param minor the minor version, not negative
 * @param patch the patch version, not negative
 * @param preRelease the dot-separated pre-release identifiers, empty for a release
 * @param build the dot-separated build metadata identifiers, usually empty
 */
public record Semver(
    long major, long minor, long patch, List<String> preRelease, List<String> build)
    implements Comparable<Semver> {

  /** Validates every part; use {@link #parse(String)} to read the text form. */
  public Semver {
    if (major < 0 || minor < 0 || patch < 0) {
      throw new IllegalArgumentException(
          "semver core numbers must not be negative: " + major + "." + minor + "." + patch);
    }
    preRelease = List.copyOf(preRelease);
    build = List.copyOf(build);
    for (String id : preRelease) {
      String problem = preReleaseIdentifierProblem(id);
      if (problem != null) {
        throw new IllegalArgumentException("invalid semver pre-release identifier: " + problem);
      }
    }
    for (String id : build) {
      String problem = buildIdentifierProblem(id);
      if (problem != null) {
        throw new IllegalArgumentException("invalid semver build identifier: " + problem);
      }
    }
  }

  /** A release version without pre-release or build metadata. */
  public static Semver of(long major, long minor, long patch) {
    return new Semver(major, minor, patch, List.of(), List.of());
  }

  /**
   * Parses the strict SemVer 2.0.0 syntax: no {@code v} prefix, all three core numbers, no leading
   * zeros in numbers, identifiers of {@code [0-9A-Za-z-]}.
   *
   * @throws IllegalArgumentException naming the text and the rule it breaks
   */
  public static Semver parse(String text) {
    Objects.requireNonNull(text, "semver");
    Parsed p = parseOrProblem(text);
    if (p.problem != null) {
      throw new IllegalArgumentException("invalid semantic version \"" + text + "\": " + p.problem);
    }
    return p.version;
  }

  /** The version, or empty when the text is not a strict SemVer 2.0.0 version. */
  public static Optional<Semver> tryParse(String text) {
    if (text == null) {
      return Optional.empty();
    }
    return Optional.ofNullable(parseOrProblem(text).version);
  }

  /** Whether the text is a strict SemVer 2.0.0 version (the rule for version attributes). */
  public static boolean isValid(String text) {
    return tryParse(text).isPresent();
  }

  /**
   * Parses after Kubernetes' normalization (the {@code semver(string, true)} CEL form): a leading
   * {@code v} is dropped, a missing minor or patch number becomes 0 and leading zeros of the core
   * numbers are removed, so {@code v1.02} reads as {@code 1.2.0}.
   *
   * @throws IllegalArgumentException when even the normalized text is not a valid version
   */
  public static Semver parseNormalized(String text) {
    Objects.requireNonNull(text, "semver");
    String normalized = normalize(text);
    Parsed p = parseOrProblem(normalized);
    if (p.problem != null) {
      throw new IllegalArgumentException(
          "invalid semantic version \""
              + text
              + "\" (normalized \""
              + normalized
              + "\"): "
              + p.problem);
    }
    return p.version;
  }

  /** Like {@link #parseNormalized(String)}, without the exception. */
  public static Optional<Semver> tryParseNormalized(String text) {
    if (text == null) {
      return Optional.empty();
    }
    return Optional.ofNullable(parseOrProblem(normalize(text)).version);
  }

  private static String normalize(String text) {
    String s = text.startsWith("v") ? text.substring(1) : text;
    int end = s.length();
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      if (c == '-' || c == '+') {
        end = i;
        break;
      }
    }
    String core = s.substring(0, end);
    String rest = s.substring(end);
    String[] parts = core.split("\\.", -1);
    if (parts.length > 3) {
      return text; // leave it to the strict parser to report
    }
    StringBuilder b = new StringBuilder();
    for (int i = 0; i < 3; i++) {
      if (i > 0) {
        b.append('.');
      }
      String part = i < parts.length ? parts[i] : "0";
      int zeros = 0;
      while (zeros < part.length() - 1 && part.charAt(zeros) == '0') {
        zeros++;
      }
      b.append(part, zeros, part.length());
    }
    return b.append(rest).toString();
  }

  private record Parsed(Semver version, String problem) {}

  private static Parsed parseOrProblem(String text) {
    if (text.isEmpty()) {
      return new Parsed(null, "must not be empty");
    }
    int plus = text.indexOf('+');
    String build = plus < 0 ? null : text.substring(plus + 1);
    String beforeBuild = plus < 0 ? text : text.substring(0, plus);
    int dash = beforeBuild.indexOf('-');
    String pre = dash < 0 ? null : beforeBuild.substring(dash + 1);
    String core = dash < 0 ? beforeBuild : beforeBuild.substring(0, dash);

    String[] nums = core.split("\\.", -1);
    if (nums.length != 3) {
      return new Parsed(null, "must have the form MAJOR.MINOR.PATCH");
    }
    long[] values = new long[3];
    String[] names = {"major", "minor", "patch"};
    for (int i = 0; i < 3; i++) {
      String n = nums[i];
      if (n.isEmpty() || !allDigits(n)) {
        return new Parsed(null, names[i] + " version \"" + n + "\" must be a number");
      }
      if (n.length() > 1 && n.charAt(0) == '0') {
        return new Parsed(null, names[i] + " version \"" + n + "\" must not have leading zeros");
      }
      try {
        values[i] = Long.parseLong(n);
      } catch (NumberFormatException e) {
        return new Parsed(null, names[i] + " version \"" + n + "\" is too large");
      }
    }

    List<String> preIds = List.of();
    if (pre != null) {
      preIds = List.of(pre.split("\\.", -1));
      for (String id : preIds) {
        String problem = preReleaseIdentifierProblem(id);
        if (problem != null) {
          return new Parsed(null, "pre-release: " + problem);
        }
      }
    }
    List<String> buildIds = List.of();
    if (build != null) {
      buildIds = List.of(build.split("\\.", -1));
      for (String id : buildIds) {
        String problem = buildIdentifierProblem(id);
        if (problem != null) {
          return new Parsed(null, "build metadata: " + problem);
        }
      }
    }
    return new Parsed(new Semver(values[0], values[1], values[2], preIds, buildIds), null);
  }

  private static String preReleaseIdentifierProblem(String id) {
    String problem = buildIdentifierProblem(id);
    if (problem != null) {
      return problem;
    }
    if (allDigits(id) && id.length() > 1 && id.charAt(0) == '0') {
      return "numeric identifier \"" + id + "\" must not have leading zeros";
    }
    return null;
  }

  private static String buildIdentifierProblem(String id) {
    if (id.isEmpty()) {
      return "identifiers must not be empty";
    }
    for (int i = 0; i < id.length(); i++) {
      char c = id.charAt(i);
      boolean ok =
          (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '-';
      if (!ok) {
        return "identifier \"" + id + "\" may only contain [0-9A-Za-z-]";
      }
    }
    return null;
  }

  private static boolean allDigits(String s) {
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      if (c < '0' || c > '9') {
        return false;
      }
    }
    return !s.isEmpty();
  }

  /** Whether this is a pre-release ({@code 1.0.0-rc.1}), which precedes its release. */
  public boolean isPreRelease() {
    return !preRelease.isEmpty();
  }

  /** SemVer 2.0.0 precedence (§11); build metadata does not take part. */
  @Override
  public int compareTo(Semver other) {
    int c = Long.compare(major, other.major);
    if (c == 0) {
      c = Long.compare(minor, other.minor);
    }
    if (c == 0) {
      c = Long.compare(patch, other.patch);
    }
    if (c != 0) {
      return c;
    }
    // A release has higher precedence than any of its pre-releases.
    if (preRelease.isEmpty() || other.preRelease.isEmpty()) {
      return Boolean.compare(preRelease.isEmpty(), other.preRelease.isEmpty());
    }
    int n = Math.min(preRelease.size(), other.preRelease.size());
    for (int i = 0; i < n; i++) {
      c = compareIdentifiers(preRelease.get(i), other.preRelease.get(i));
      if (c != 0) {
        return c;
      }
    }
    return Integer.compare(preRelease.size(), other.preRelease.size());
  }

  private static int compareIdentifiers(String a, String b) {
    boolean numA = allDigits(a);
    boolean numB = allDigits(b);
    if (numA && numB) {
      // No leading zeros, so the longer number is the larger one; no overflow for huge ids.
      int c = Integer.compare(a.length(), b.length());
      return c != 0 ? c : a.compareTo(b);
    }
    if (numA != numB) {
      return numA ? -1 : 1; // numeric identifiers sort before alphanumeric ones
    }
    return a.compareTo(b); // ASCII order: identifiers are ASCII-only
  }

  /** Same precedence: equal core numbers and pre-release, whatever the build metadata. */
  @Override
  public boolean equals(Object o) {
    return o instanceof Semver s
        && major == s.major
        && minor == s.minor
        && patch == s.patch
        && preRelease.equals(s.preRelease);
  }

  @Override
  public int hashCode() {
    return Objects.hash(major, minor, patch, preRelease);
  }

  /** The SemVer text, including pre-release and build metadata. */
  @Override
  public String toString() {
    StringBuilder b = new StringBuilder().append(major).append('.').append(minor).append('.');
    b.append(patch);
    if (!preRelease.isEmpty()) {
      b.append('-').append(String.join(".", preRelease));
    }
    if (!build.isEmpty()) {
      b.append('+').append(String.join(".", build));
    }
    return b.toString();
  }
}
