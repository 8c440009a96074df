package io.dra4j.runtime.slices;

import java.util.regex.Pattern;

/**
 * Strict Semantic Versioning 2.0.0 syntax, as the API server checks {@code version} attributes:
 * {@code MAJOR.MINOR.PATCH} without leading zeros, an optional {@code -pre.release} whose numeric
 * identifiers have no leading zeros, and optional {@code +build.metadata}. No "v" prefix, no
 * missing parts.
 *
 * <p>Syntax only. The CEL package needs ordering as well; when its semver type exists, this class
 * should become a call to it (kept here so the validator has no dependency on the CEL engine).
 */
final class Semver {
  private Semver() {}

  private static final String NUMERIC = "(0|[1-9][0-9]*)";
  private static final String PRE_RELEASE_ID = "(0|[1-9][0-9]*|[0-9]*[a-zA-Z-][0-9a-zA-Z-]*)";
  private static final String BUILD_ID = "[0-9a-zA-Z-]+";
  private static final Pattern SEMVER =
      Pattern.compile(
          NUMERIC
              + "\\."
              + NUMERIC
              + "\\."
              + NUMERIC
              + "(-"
              + PRE_RELEASE_ID
              + "(\\."
              + PRE_RELEASE_ID
              + ")*)?"
              + "(\\+"
              + BUILD_ID
              + "(\\."
              + BUILD_ID
              + ")*)?");

  static boolean isValid(String version) {
    return SEMVER.matcher(version).matches();
  }
}
