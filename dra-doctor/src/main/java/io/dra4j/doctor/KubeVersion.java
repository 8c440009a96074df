package io.dra4j.doctor;

import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The minor release of a component, from the version it reports ({@code v1.37.2}, {@code
 * v1.36.4-eks-1a2b}, {@code v1.37.0-dra4j-fake}).
 */
record KubeVersion(int major, int minor) implements Comparable<KubeVersion> {
  /** The release whose rules the doctor applies. */
  static final KubeVersion V1_37 = new KubeVersion(1, 37);

  /** DRAExtendedResource went beta (on by default) here; before, it was alpha and off. */
  static final KubeVersion V1_36 = new KubeVersion(1, 36);

  private static final Pattern FORM = Pattern.compile("v?(\\d+)\\.(\\d+)(?:[.+-].*)?");

  static Optional<KubeVersion> parse(String text) {
    Matcher m = FORM.matcher(text.strip());
    if (!m.matches()) {
      return Optional.empty();
    }
    try {
      return Optional.of(
          new KubeVersion(Integer.parseInt(m.group(1)), Integer.parseInt(m.group(2))));
    } catch (NumberFormatException e) {
      return Optional.empty();
    }
  }

  @Override
  public int compareTo(KubeVersion o) {
    return major != o.major ? Integer.compare(major, o.major) : Integer.compare(minor, o.minor);
  }

  boolean below(KubeVersion o) {
    return compareTo(o) < 0;
  }

  @Override
  public String toString() {
    return major + "." + minor;
  }
}
