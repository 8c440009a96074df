package io.dra4j.runtime.internal.health;

import io.dra4j.kube.KubeNames;
import java.util.regex.Pattern;

/**
 * A device taint's value is a label value; the health reason it carries is free text. (The key is
 * checked by {@link io.dra4j.kube.KubeNames#qualifiedName}.)
 */
final class LabelSyntax {
  private LabelSyntax() {}

  private static final Pattern VALUE_CHAR = Pattern.compile("[-A-Za-z0-9_.]");

  /**
   * Turns free text into a valid label value: characters outside {@code [-A-Za-z0-9_.]} become
   * {@code -}, the result is cut to 63 characters and trimmed to start and end with an alphanumeric
   * character. May be empty (an empty taint value is valid).
   */
  static String toLabelValue(String text) {
    StringBuilder sb = new StringBuilder(Math.min(text.length(), KubeNames.LABEL_VALUE_MAX + 1));
    text.codePoints()
        .limit(KubeNames.LABEL_VALUE_MAX * 4L)
        .forEach(
            cp -> {
              String s = new String(Character.toChars(cp));
              sb.append(cp < 128 && VALUE_CHAR.matcher(s).matches() ? s : "-");
            });
    String v =
        sb.length() > KubeNames.LABEL_VALUE_MAX
            ? sb.substring(0, KubeNames.LABEL_VALUE_MAX)
            : sb.toString();
    int start = 0;
    int end = v.length();
    while (start < end && !Character.isLetterOrDigit(v.charAt(start))) {
      start++;
    }
    while (end > start && !Character.isLetterOrDigit(v.charAt(end - 1))) {
      end--;
    }
    return v.substring(start, end);
  }
}
