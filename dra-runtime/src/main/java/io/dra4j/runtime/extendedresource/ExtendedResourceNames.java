package io.dra4j.runtime.extendedresource;

import io.dra4j.kube.DeviceClass;
import io.dra4j.kube.KubeNames;
import io.dra4j.validation.Limits;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;

/**
 * The name rules of KEP-5004 (Kubernetes' {@code IsExtendedResourceName} and the implicit name of a
 * DeviceClass). Each check returns the broken rules as phrases, empty when the name is fine.
 *
 * <p>Also the scheduler's choice among classes that map the same name ({@link #SCHEDULER_ORDER}).
 * Public so that the migration doctor ({@code io.dra4j.doctor}) and the test kit's scheduler apply
 * the guard's rules instead of copies of them.
 */
public final class ExtendedResourceNames {
  private ExtendedResourceNames() {}

  /** Quota prefix: {@code requests.<name>} must itself be a qualified name. */
  static final String REQUESTS_PREFIX = "requests.";

  /**
   * An explicit {@code extendedResourceName}: it contains '/', is not in the kubernetes.io domain
   * (no {@code kubernetes.io/} anywhere in it), has no {@code requests.} prefix, and {@code
   * requests.<name>} is a qualified name (so the domain is a DNS subdomain of at most 244
   * characters and the name part at most 63 characters of {@code [-A-Za-z0-9_.]}, alphanumeric at
   * both ends).
   */
  public static List<String> explicit(String name) {
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
    for (String p : KubeNames.qualifiedName(REQUESTS_PREFIX + name)) {
      problems.add("\"requests." + name + "\" must be a qualified name: " + p);
    }
    return problems;
  }

  /**
   * Why the implicit name {@code deviceclass.resource.kubernetes.io/<class>} of a class cannot be
   * requested: the class name must also be a valid name part (at most 63 characters of {@code
   * [-A-Za-z0-9_.]}, alphanumeric at both ends).
   */
  public static List<String> implicit(String className) {
    if (className.contains("/")) {
      return List.of(
          "the class name has characters not allowed in the name part of a qualified name");
    }
    return KubeNames.qualifiedName(className).stream()
        .map(p -> "the class name cannot be the name part of an extended resource name: " + p)
        .toList();
  }

  /**
   * The scheduler's preference among classes that map one explicit name: the newest ({@code
   * metadata.creationTimestamp}) first, on equal times the lexicographically first name; a missing
   * or unreadable creation time counts as the earliest.
   */
  public static final Comparator<DeviceClass> SCHEDULER_ORDER =
      Comparator.comparing(ExtendedResourceNames::created, Comparator.reverseOrder())
          .thenComparing(c -> c.metadata().name());

  private static Instant created(DeviceClass c) {
    String t = c.metadata().creationTimestamp();
    if (t.isEmpty()) {
      return Instant.MIN;
    }
    try {
      return OffsetDateTime.parse(t).toInstant();
    } catch (DateTimeParseException e) {
      return Instant.MIN;
    }
  }

  /** The implicit name of a class. */
  public static String implicitName(String className) {
    return DeviceClass.IMPLICIT_EXTENDED_RESOURCE_PREFIX + className;
  }

  /** A driver name: at most 63 characters, a DNS subdomain (compared in lower case). */
  public static List<String> driverName(String name) {
    List<String> problems = new ArrayList<>();
    if (name.length() > Limits.DRIVER_NAME_MAX_LENGTH) {
      problems.add(KubeNames.tooLong(name, Limits.DRIVER_NAME_MAX_LENGTH));
    }
    problems.addAll(KubeNames.dnsSubdomain(name.toLowerCase(Locale.ROOT)));
    return problems;
  }
}
