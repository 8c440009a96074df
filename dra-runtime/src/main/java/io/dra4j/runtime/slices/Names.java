package io.dra4j.runtime.slices;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.regex.Pattern;

/**
 * The Kubernetes name syntaxes a ResourceSlice uses. Each check returns the problems it found as
 * short phrases ("must be at most 63 characters, it is 70"), empty when the value is fine; callers
 * prefix them with the pool, device and field.
 */
final class Names {
  private Names() {}

  static final int DNS1123_LABEL_MAX = 63;
  static final int DNS1123_SUBDOMAIN_MAX = 253;
  static final int LABEL_NAME_MAX = 63;
  static final int LABEL_VALUE_MAX = 63;

  private static final String LABEL = "[a-z0-9]([-a-z0-9]*[a-z0-9])?";
  private static final Pattern DNS1123_LABEL = Pattern.compile(LABEL);
  private static final Pattern DNS1123_SUBDOMAIN = Pattern.compile(LABEL + "(\\." + LABEL + ")*");
  private static final Pattern C_IDENTIFIER = Pattern.compile("[A-Za-z_][A-Za-z0-9_]*");
  private static final Pattern QUALIFIED_NAME_PART =
      Pattern.compile("([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]");
  private static final Pattern LABEL_VALUE =
      Pattern.compile("(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?");

  /** Lower-case RFC 1123 label: device, counter and counter-set names. */
  static List<String> dnsLabel(String value) {
    List<String> problems = new ArrayList<>();
    if (value.isEmpty()) {
      problems.add("must not be empty");
      return problems;
    }
    if (value.length() > DNS1123_LABEL_MAX) {
      problems.add(tooLong(value, DNS1123_LABEL_MAX));
    }
    if (!DNS1123_LABEL.matcher(value).matches()) {
      problems.add(
          "must be a lower-case RFC 1123 label (a-z, 0-9 and '-', starting and ending with an"
              + " alphanumeric character)");
    }
    return problems;
  }

  /** Lower-case RFC 1123 subdomain: node names, object names, label prefixes. */
  static List<String> dnsSubdomain(String value) {
    List<String> problems = new ArrayList<>();
    if (value.isEmpty()) {
      problems.add("must not be empty");
      return problems;
    }
    if (value.length() > DNS1123_SUBDOMAIN_MAX) {
      problems.add(tooLong(value, DNS1123_SUBDOMAIN_MAX));
    }
    if (!DNS1123_SUBDOMAIN.matcher(value).matches()) {
      problems.add(
          "must be a lower-case RFC 1123 subdomain (labels of a-z, 0-9 and '-' separated by '.',"
              + " each starting and ending with an alphanumeric character)");
    }
    return problems;
  }

  /**
   * Driver names and attribute domains: 2 to 63 characters (the CSI driver-name rule the API server
   * reuses) whose lower-cased form is a DNS subdomain. Upper case passes here; see {@link
   * #hasUpperCase}.
   */
  static List<String> driverName(String value) {
    List<String> problems = new ArrayList<>();
    if (value.isEmpty()) {
      problems.add("must not be empty");
      return problems;
    }
    if (value.length() > Limits.DRIVER_NAME_MAX_LENGTH) {
      problems.add(tooLong(value, Limits.DRIVER_NAME_MAX_LENGTH));
    }
    if (value.length() == 1) {
      problems.add("must be at least 2 characters");
    }
    if (!DNS1123_SUBDOMAIN.matcher(value.toLowerCase(Locale.ROOT)).matches()) {
      problems.add(
          "must be a DNS subdomain (letters, digits, '-' and '.', each label starting and ending"
              + " with a letter or digit), e.g. gpu.example.com");
    }
    return problems;
  }

  static boolean hasUpperCase(String value) {
    return !value.equals(value.toLowerCase(Locale.ROOT));
  }

  /** One or more DNS subdomains separated by '/', at most 253 characters in all. */
  static List<String> poolName(String value) {
    List<String> problems = new ArrayList<>();
    if (value.isEmpty()) {
      problems.add("must not be empty");
      return problems;
    }
    if (value.length() > Limits.POOL_NAME_MAX_LENGTH) {
      problems.add(tooLong(value, Limits.POOL_NAME_MAX_LENGTH));
    }
    String[] parts = value.split("/", -1);
    for (String part : parts) {
      if (part.isEmpty() || !DNS1123_SUBDOMAIN.matcher(part).matches()) {
        problems.add(
            "must be one or more lower-case DNS subdomains separated by '/', part \""
                + part
                + "\" is not");
        break;
      }
    }
    return problems;
  }

  /** A C identifier of at most 32 characters: the name part of attribute and capacity keys. */
  static List<String> cIdentifier(String value) {
    List<String> problems = new ArrayList<>();
    if (value.length() > Limits.ATTRIBUTE_ID_MAX_LENGTH) {
      problems.add(
          "the name \""
              + value
              + "\" is "
              + value.length()
              + " characters, the limit is "
              + Limits.ATTRIBUTE_ID_MAX_LENGTH);
    }
    if (!C_IDENTIFIER.matcher(value).matches()) {
      problems.add(
          "the name \""
              + value
              + "\" must be a C identifier (letters, digits and '_', not starting with a digit)");
    }
    return problems;
  }

  /**
   * An attribute or capacity key: {@code name} or {@code domain/name}, the name a C identifier of
   * at most 32 characters and the domain validated like a driver name (at most 63).
   */
  static List<String> qualifiedName(String value) {
    List<String> problems = new ArrayList<>();
    if (value.isEmpty()) {
      problems.add("the key must not be empty");
      return problems;
    }
    String[] parts = value.split("/", -1);
    if (parts.length > 2) {
      problems.add("must be a C identifier or domain/C identifier with one '/', it has more");
      return problems;
    }
    if (parts.length == 2) {
      if (parts[0].isEmpty()) {
        problems.add("the domain before '/' must not be empty");
      } else {
        for (String p : driverName(parts[0])) {
          problems.add("the domain \"" + parts[0] + "\" " + p);
        }
      }
      if (parts[1].isEmpty()) {
        problems.add("the name after '/' must not be empty");
        return problems;
      }
    }
    problems.addAll(cIdentifier(parts[parts.length - 1]));
    return problems;
  }

  /** The domain of a qualified name, empty for an unqualified one. */
  static String domainOf(String qualifiedName) {
    int slash = qualifiedName.indexOf('/');
    return slash < 0 ? "" : qualifiedName.substring(0, slash);
  }

  /** Whether the domain is reserved for Kubernetes ({@code kubernetes.io} and its subdomains). */
  static boolean isKubernetesDomain(String domain) {
    String d = domain.toLowerCase(Locale.ROOT);
    return d.equals("kubernetes.io") || d.endsWith(".kubernetes.io");
  }

  /**
   * A label key (taint keys, condition types): an optional DNS subdomain prefix of at most 253
   * characters and '/', then a name of at most 63 characters.
   */
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
        for (String p : dnsSubdomain(prefix)) {
          problems.add("the prefix \"" + prefix + "\" " + p);
        }
      }
    }
    if (name.isEmpty()) {
      problems.add("the name must not be empty");
      return problems;
    }
    if (name.length() > LABEL_NAME_MAX) {
      problems.add(
          "the name part is " + name.length() + " characters, the limit is " + LABEL_NAME_MAX);
    }
    if (!QUALIFIED_NAME_PART.matcher(name).matches()) {
      problems.add(
          "the name part must consist of alphanumeric characters, '-', '_' or '.', and must start"
              + " and end with an alphanumeric character");
    }
    return problems;
  }

  /** A label value: empty, or at most 63 characters of the label-value alphabet. */
  static List<String> labelValue(String value) {
    List<String> problems = new ArrayList<>();
    if (value.length() > LABEL_VALUE_MAX) {
      problems.add(tooLong(value, LABEL_VALUE_MAX));
    }
    if (!LABEL_VALUE.matcher(value).matches()) {
      problems.add(
          "must be empty or consist of alphanumeric characters, '-', '_' or '.', starting and"
              + " ending with an alphanumeric character");
    }
    return problems;
  }

  static int utf8Length(String value) {
    return value.getBytes(StandardCharsets.UTF_8).length;
  }

  private static String tooLong(String value, int limit) {
    return "is " + value.length() + " characters, the limit is " + limit;
  }
}
