package io.dra4j.kube;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.regex.Pattern;

/**
 * The Kubernetes name syntaxes (apimachinery's {@code IsDNS1123Label}, {@code IsDNS1123Subdomain},
 * {@code IsQualifiedName}, {@code IsValidLabelValue}), in one place so that slices, taints, device
 * classes and driver names are judged by the same rules. Each check returns the rules a value
 * breaks as short phrases ("is 70 characters, the limit is 63"), empty when it is fine; callers
 * prefix them with the object and the field.
 */
public final class KubeNames {
  private KubeNames() {}

  public static final int DNS1123_LABEL_MAX = 63;
  public static final int DNS1123_SUBDOMAIN_MAX = 253;

  /** The name part of a qualified name (label keys, taint keys, extended resource names). */
  public static final int QUALIFIED_NAME_PART_MAX = 63;

  public static final int LABEL_VALUE_MAX = 63;

  private static final String LABEL = "[a-z0-9]([-a-z0-9]*[a-z0-9])?";
  private static final Pattern DNS1123_LABEL = Pattern.compile(LABEL);
  private static final Pattern DNS1123_SUBDOMAIN = Pattern.compile(LABEL + "(\\." + LABEL + ")*");
  private static final Pattern QUALIFIED_NAME_PART =
      Pattern.compile("([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]");
  private static final Pattern LABEL_VALUE =
      Pattern.compile("(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?");

  /** A lower-case RFC 1123 label: device, counter and counter-set names. */
  public static List<String> dnsLabel(String value) {
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

  /** A lower-case RFC 1123 subdomain: object names, node names, the prefix of a qualified name. */
  public static List<String> dnsSubdomain(String value) {
    List<String> problems = new ArrayList<>();
    if (value.isEmpty()) {
      problems.add("must not be empty");
      return problems;
    }
    if (value.length() > DNS1123_SUBDOMAIN_MAX) {
      problems.add(tooLong(value, DNS1123_SUBDOMAIN_MAX));
    }
    if (!hasDnsSubdomainSyntax(value)) {
      problems.add(
          "must be a lower-case DNS subdomain (RFC 1123: labels of a-z, 0-9 and '-' separated by"
              + " '.', each starting and ending with an alphanumeric character)");
    }
    return problems;
  }

  /** Whether the value has the syntax of a DNS subdomain, whatever its length. */
  public static boolean hasDnsSubdomainSyntax(String value) {
    return DNS1123_SUBDOMAIN.matcher(value).matches();
  }

  /**
   * A qualified name (label keys, taint keys, condition types, extended resource names): an
   * optional DNS subdomain prefix and one '/', then a name part of at most 63 characters of {@code
   * [-A-Za-z0-9_.]}, alphanumeric at both ends.
   */
  public static List<String> qualifiedName(String value) {
    List<String> problems = new ArrayList<>();
    if (value.isEmpty()) {
      problems.add("must not be empty");
      return problems;
    }
    String[] parts = value.split("/", -1);
    if (parts.length > 2) {
      problems.add("must have at most one '/' (prefix/name)");
      return problems;
    }
    if (parts.length == 2) {
      String prefix = parts[0];
      if (prefix.isEmpty()) {
        problems.add("the prefix before '/' must not be empty");
      } else {
        for (String p : dnsSubdomain(prefix)) {
          problems.add("the prefix \"" + prefix + "\" " + p);
        }
      }
    }
    String name = parts[parts.length - 1];
    if (name.isEmpty()) {
      problems.add("the name part must not be empty");
      return problems;
    }
    if (name.length() > QUALIFIED_NAME_PART_MAX) {
      problems.add(
          "the name part is "
              + name.length()
              + " characters, the limit is "
              + QUALIFIED_NAME_PART_MAX);
    }
    if (!QUALIFIED_NAME_PART.matcher(name).matches()) {
      problems.add(
          "the name part must consist of alphanumeric characters, '-', '_' or '.', and must start"
              + " and end with an alphanumeric character");
    }
    return problems;
  }

  /** A label value (taint values): empty, or at most 63 characters of the label-value alphabet. */
  public static List<String> labelValue(String value) {
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

  /** The domain (prefix) of a qualified name, empty for an unqualified one. */
  public static String domainOf(String qualifiedName) {
    int slash = qualifiedName.indexOf('/');
    return slash < 0 ? "" : qualifiedName.substring(0, slash);
  }

  /** Whether the domain is reserved for Kubernetes ({@code kubernetes.io} and its subdomains). */
  public static boolean isKubernetesDomain(String domain) {
    String d = domain.toLowerCase(Locale.ROOT);
    return d.equals("kubernetes.io") || d.endsWith(".kubernetes.io");
  }

  /** The one wording of a length problem: {@code is 70 characters, the limit is 63}. */
  public static String tooLong(String value, int limit) {
    return "is " + value.length() + " characters, the limit is " + limit;
  }
}
