package io.dra4j.validation;

import io.dra4j.kube.KubeNames;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.regex.Pattern;

/**
 * The name syntaxes only a ResourceSlice uses (driver, pool, attribute and capacity names); the
 * general Kubernetes ones are {@link KubeNames}. Each check returns the problems it found as short
 * phrases, empty when the value is fine; callers prefix them with the pool, device and field.
 */
final class Names {
  private Names() {}

  private static final Pattern C_IDENTIFIER = Pattern.compile("[A-Za-z_][A-Za-z0-9_]*");

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
      problems.add(KubeNames.tooLong(value, Limits.DRIVER_NAME_MAX_LENGTH));
    }
    if (value.length() == 1) {
      problems.add("must be at least 2 characters");
    }
    if (!KubeNames.hasDnsSubdomainSyntax(value.toLowerCase(Locale.ROOT))) {
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
      problems.add(KubeNames.tooLong(value, Limits.POOL_NAME_MAX_LENGTH));
    }
    String[] parts = value.split("/", -1);
    for (String part : parts) {
      if (!KubeNames.hasDnsSubdomainSyntax(part)) {
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

  /**
   * A fully qualified attribute name: {@code domain/name} as {@link #qualifiedName}, the domain
   * required (k8s.io/kubernetes v1.37.2 pkg/apis/resource/validation/validation.go:1645-1654,
   * validateFullyQualifiedName).
   */
  static List<String> fullyQualifiedName(String value) {
    List<String> problems = qualifiedName(value);
    if (problems.isEmpty() && value.indexOf('/') < 0) {
      problems.add(
          "must be a domain and a name separated by a slash, e.g. gpu.example.com/profile");
    }
    return problems;
  }

  static int utf8Length(String value) {
    return value.getBytes(StandardCharsets.UTF_8).length;
  }
}
