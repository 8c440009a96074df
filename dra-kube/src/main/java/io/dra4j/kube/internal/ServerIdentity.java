package io.dra4j.kube.internal;

import java.net.InetAddress;
import java.security.cert.CertificateException;
import java.security.cert.CertificateParsingException;
import java.security.cert.X509Certificate;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

/**
 * Whether a server certificate names the host the client connected to, decided as Go's crypto/x509
 * (and so kubectl) decides: from the subject alternative names only, never the common name; a host
 * that is an IP address against the IP names; a DNS host against the DNS names, case-insensitively,
 * with a wildcard only as a whole leftmost label that stands for exactly one label.
 *
 * <p>The JDK's own check (HTTPS endpoint identification) first loads the JDK's whole cacerts file
 * to learn whether the chain ends at a public CA, on the first handshake of the process: 55-60 ms
 * of CPU on a cold JVM (measured alone), behind a class initialisation lock, while the first
 * prepare after a start waited.
 */
public final class ServerIdentity {
  private static final int DNS_NAME = 2;
  private static final int IP_ADDRESS = 7;

  private ServerIdentity() {}

  /** Throws when the certificate does not name {@code host}, saying which names it has. */
  public static void check(String host, X509Certificate certificate) throws CertificateException {
    List<String> dns = new ArrayList<>();
    List<String> ips = new ArrayList<>();
    Collection<List<?>> names;
    try {
      names = certificate.getSubjectAlternativeNames();
    } catch (CertificateParsingException e) {
      throw new CertificateException(
          "the server's certificate has unreadable subject alternative names: " + e.getMessage(),
          e);
    }
    if (names != null) {
      for (List<?> name : names) {
        if (name.size() >= 2 && name.get(1) instanceof String value) {
          int type = (Integer) name.get(0);
          if (type == DNS_NAME) {
            dns.add(value);
          } else if (type == IP_ADDRESS) {
            ips.add(value);
          }
        }
      }
    }
    if (!matches(host, dns, ips)) {
      List<String> all = new ArrayList<>(dns);
      all.addAll(ips);
      throw new CertificateException(
          "the server's certificate is for "
              + (all.isEmpty() ? "no host (it has no DNS or IP subject alternative names)" : all)
              + ", not for "
              + host
              + " (its common name does not count, as for kubectl)");
    }
  }

  /** The rule itself, on the certificate's DNS and IP names. */
  static boolean matches(String host, List<String> dnsNames, List<String> ipAddresses) {
    Optional<InetAddress> ip = IpLiteral.parse(host);
    if (ip.isPresent()) {
      return ipAddresses.stream().map(IpLiteral::parse).anyMatch(ip::equals);
    }
    String h = normalize(host);
    if (h.isEmpty()) {
      return false;
    }
    for (String name : dnsNames) {
      String pattern = normalize(name);
      if (pattern.equals(h)) {
        return true;
      }
      if (pattern.startsWith("*.") && pattern.length() > 2) {
        String rest = pattern.substring(1); // ".example.com"
        int label = h.length() - rest.length();
        if (label > 0 && h.endsWith(rest) && h.lastIndexOf('.', label - 1) < 0) {
          return true;
        }
      }
    }
    return false;
  }

  private static String normalize(String name) {
    String n = name.toLowerCase(Locale.ROOT);
    return n.endsWith(".") ? n.substring(0, n.length() - 1) : n;
  }
}
