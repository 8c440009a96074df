package io.dra4j.runtime.health;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.regex.Pattern;

/**
 * The two label syntaxes a device taint uses: its key is a label name, its value a label value.
 * Checks return the problems found as short phrases, empty when the value is fine.
 */
final class LabelSyntax {
  private LabelSyntax() {}

  static final int NAME_MAX = 63;
  static final int PREFIX_MAX = 253;
  static final int VALUE_MAX = 63;

  private static final String DNS_LABEL = "[a-z0-9]([-a-z0-9]*[a-z0-9])?";
  private static final Pattern DNS_SUBDOMAIN =
      Pattern.compile(DNS_LABEL + "(\\." + DNS_LABEL + ")*");
  private static final Pattern NAME_PART =
      Pattern.compile("([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]");
  private static final Pattern VALUE_CHAR = Pattern.compile("[-A-Za-z0-9_.]");

  /** A label name: optional DNS subdomain prefix (at most 253) and '/', a name of at most 63. */
  static List<String> labelName(String value) {
    List<String> problems = new ArrayList<>();
    if (value.isEmpty()) {
      problems.add("must not be empty");
      return problems;
    }
    String name = value;
    int slash = value.indexOf('/');
    if (slash >= 0) {
      String prefix = value.substring(0, slash);
      name = value.substring(slash + 1);
      if (prefix.isEmpty()) {
        problems.add("the prefix before '/' must not be empty");
      } else {
        if (prefix.length() > PREFIX_MAX) {
          problems.add(
              "the prefix is " + prefix.length() + " characters, the limit is " + PREFIX_MAX);
        }
        if (!DNS_SUBDOMAIN.matcher(prefix).matches()) {
          problems.add(
              "the prefix \""
                  + prefix
                  + "\" must be a lower-case DNS subdomain (a-z, 0-9, '-' and '.')");
        }
      }
    }
    if (name.isEmpty()) {
      problems.add("the name after the prefix must not be empty");
      return problems;
    }
    if (name.length() > NAME_MAX) {
      problems.add("the name part is " + name.length() + " characters, the limit is " + NAME_MAX);
    }
    if (!NAME_PART.matcher(name).matches()) {
      problems.add(
          "the name part must consist of alphanumeric characters, '-', '_' or '.', starting and"
              + " ending with an alphanumeric character");
    }
    return problems;
  }

  /** Whether the key's prefix is a reserved Kubernetes domain. */
  static boolean reservedPrefix(String key) {
    int slash = key.indexOf('/');
    if (slash < 0) {
      return false;
    }
    String d = key.substring(0, slash).toLowerCase(Locale.ROOT);
    return d.equals("kubernetes.io") || d.endsWith(".kubernetes.io");
  }

  /**
   * Turns free text into a valid label value: characters outside {@code [-A-Za-z0-9_.]} become
   * {@code -}, the result is cut to 63 characters and trimmed to start and end with an alphanumeric
   * character. May be empty (an empty taint value is valid).
   */
  static String toLabelValue(String text) {
    StringBuilder sb = new StringBuilder(Math.min(text.length(), VALUE_MAX + 1));
    text.codePoints()
        .limit(VALUE_MAX * 4L)
        .forEach(
            cp -> {
              String s = new String(Character.toChars(cp));
              sb.append(cp < 128 && VALUE_CHAR.matcher(s).matches() ? s : "-");
            });
    String v = sb.length() > VALUE_MAX ? sb.substring(0, VALUE_MAX) : sb.toString();
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
