package io.dra4j.runtime.extendedresource;

import io.dra4j.runtime.kube.DeviceClass;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.regex.Pattern;

/**
 * The name rules of KEP-5004 (Kubernetes' {@code IsExtendedResourceName} and the implicit name of a
 * DeviceClass). Each check returns the broken rules as phrases, empty when the name is fine.
 */
final class ExtendedResourceNames {
  private ExtendedResourceNames() {}

  /** Quota prefix: {@code requests.<name>} must itself be a qualified name. */
  static final String REQUESTS_PREFIX = "requests.";

  static final int NAME_PART_MAX = 63;
  static final int PREFIX_MAX = 253;
  static final int DRIVER_NAME_MAX = 63;

  private static final String DNS_LABEL = "[a-z0-9]([-a-z0-9]*[a-z0-9])?";
  private static final Pattern DNS_SUBDOMAIN =
      Pattern.compile(DNS_LABEL + "(\\." + DNS_LABEL + ")*");
  private static final Pattern NAME_PART =
      Pattern.compile("([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]");

  /**
   * An explicit {@code extendedResourceName}: it contains '/', is not in the kubernetes.io domain
   * (no {@code kubernetes.io/} anywhere in it), has no {@code requests.} prefix, and {@code
   * requests.<name>} is a qualified name (so the domain is a DNS subdomain of at most 244
   * characters and the name part at most 63 characters of {@code [-A-Za-z0-9_.]}, alphanumeric at
   * both ends).
   */
  static List<String> explicit(String name) {
    List<String> problems = new ArrayList<>();
    if (name.isEmpty()) {
      problems.add("must not be empty");
      return problems;
    }
    if (!name.contains("/")) {
      problems.add(
          "must contain '/' (domain/name, e.g. example.com/gpu): names without a domain are"
              + " Kubernetes' native resources");
      return problems;
    }
    if (name.contains("kubernetes.io/")) {
      problems.add(
          "must not be in the kubernetes.io domain (names with \"kubernetes.io/\" are native"
              + " resources)");
    }
    if (name.startsWith(REQUESTS_PREFIX)) {
      problems.add("must not start with \"requests.\" (that prefix is for resource quota)");
    }
    for (String p : qualifiedName(REQUESTS_PREFIX + name)) {
      problems.add("\"requests." + name + "\" must be a qualified name: " + p);
    }
    return problems;
  }

  /**
   * Why the implicit name {@code deviceclass.resource.kubernetes.io/<class>} of a class cannot be
   * requested: the class name must also be a valid name part (at most 63 characters of {@code
   * [-A-Za-z0-9_.]}, alphanumeric at both ends).
   */
  static List<String> implicit(String className) {
    List<String> problems = new ArrayList<>();
    if (className.length() > NAME_PART_MAX) {
      problems.add(
          "the class name is "
              + className.length()
              + " characters; as the name part of an extended resource name it may have at most "
              + NAME_PART_MAX);
    }
    if (!className.isEmpty() && !NAME_PART.matcher(className).matches()) {
      problems.add(
          "the class name has characters not allowed in the name part of a qualified name"
              + " (alphanumeric, '-', '_' or '.', alphanumeric at both ends)");
    }
    return problems;
  }

  /** The implicit name of a class. */
  static String implicitName(String className) {
    return DeviceClass.IMPLICIT_EXTENDED_RESOURCE_PREFIX + className;
  }

  /** A DeviceClass name: a lower-case DNS subdomain of at most 253 characters. */
  static List<String> className(String name) {
    List<String> problems = new ArrayList<>();
    if (name.isEmpty()) {
      problems.add("must not be empty");
      return problems;
    }
    if (name.length() > PREFIX_MAX) {
      problems.add("is " + name.length() + " characters, the limit is " + PREFIX_MAX);
    }
    if (!DNS_SUBDOMAIN.matcher(name).matches()) {
      problems.add(
          "must be a lower-case DNS subdomain (labels of a-z, 0-9 and '-' separated by '.')");
    }
    return problems;
  }

  /** A driver name: at most 63 characters, a DNS subdomain (compared in lower case). */
  static List<String> driverName(String name) {
    List<String> problems = new ArrayList<>();
    if (name.isEmpty()) {
      problems.add("must not be empty");
      return problems;
    }
    if (name.length() > DRIVER_NAME_MAX) {
      problems.add("is " + name.length() + " characters, the limit is " + DRIVER_NAME_MAX);
    }
    if (!DNS_SUBDOMAIN.matcher(name.toLowerCase(Locale.ROOT)).matches()) {
      problems.add("must be a DNS subdomain such as gpu.example.com");
    }
    return problems;
  }

  /** Kubernetes' {@code IsQualifiedName}: {@code [prefix/]name}. */
  static List<String> qualifiedName(String value) {
    List<String> problems = new ArrayList<>();
    String[] parts = value.split("/", -1);
    String name;
    if (parts.length == 1) {
      name = parts[0];
    } else if (parts.length == 2) {
      String prefix = parts[0];
      name = parts[1];
      if (prefix.isEmpty()) {
        problems.add("the prefix before '/' must not be empty");
      } else {
        if (prefix.length() > PREFIX_MAX) {
          problems.add(
              "the prefix \""
                  + prefix
                  + "\" is "
                  + prefix.length()
                  + " characters, the limit is "
                  + PREFIX_MAX);
        }
        if (!DNS_SUBDOMAIN.matcher(prefix).matches()) {
          problems.add(
              "the prefix \""
                  + prefix
                  + "\" must be a lower-case DNS subdomain (a-z, 0-9, '-' and '.')");
        }
      }
    } else {
      problems.add("must have at most one '/'");
      return problems;
    }
    if (name.isEmpty()) {
      problems.add("the name part must not be empty");
      return problems;
    }
    if (name.length() > NAME_PART_MAX) {
      problems.add(
          "the name part \""
              + name
              + "\" is "
              + name.length()
              + " characters, the limit is "
              + NAME_PART_MAX);
    }
    if (!NAME_PART.matcher(name).matches()) {
      problems.add(
          "the name part \""
              + name
              + "\" must consist of alphanumeric characters, '-', '_' or '.', alphanumeric at both"
              + " ends");
    }
    return problems;
  }
}
