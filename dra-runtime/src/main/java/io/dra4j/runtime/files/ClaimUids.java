package io.dra4j.runtime.files;

import java.util.Objects;
import java.util.regex.Pattern;

/**
 * A claim's UID as part of the name of a file the driver writes for the claim (its CDI spec, its
 * checkpoint record): the one rule of what such a UID may look like, so that every file of a claim
 * is named, and found again, by the same test. Kubernetes UIDs are UUIDs; anything else that fits a
 * file name safely (no '/', no '_' so that {@code vendor-class_uid} splits one way, no leading dot)
 * is accepted.
 */
public final class ClaimUids {
  private static final Pattern UID =
      Pattern.compile("[A-Za-z0-9]([A-Za-z0-9.-]{0,126}[A-Za-z0-9])?");

  private ClaimUids() {}

  /** Whether {@code uid} may be part of a file name. */
  public static boolean isValid(String uid) {
    return UID.matcher(uid).matches();
  }

  /**
   * Returns {@code uid} when it may be part of a file name.
   *
   * @param use what the file is, for the message: {@code "a CDI spec"}
   * @throws IllegalArgumentException naming the UID, the use and the rule
   */
  public static String check(String uid, String use) {
    Objects.requireNonNull(uid, "claim uid");
    if (!isValid(uid)) {
      throw new IllegalArgumentException(
          "claim UID \""
              + uid
              + "\" cannot name "
              + use
              + ": it must be 1-128 letters, digits, '-' or '.', starting and ending with a letter"
              + " or digit");
    }
    return uid;
  }
}
