package io.dra4j.kube;

import com.sun.net.httpserver.HttpsConfigurator;
import com.sun.net.httpserver.HttpsExchange;
import com.sun.net.httpserver.HttpsParameters;
import com.sun.net.httpserver.HttpsServer;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.security.PrivateKey;
import java.security.cert.Certificate;
import java.security.cert.X509Certificate;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Base64;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLParameters;
import javax.net.ssl.TrustManagerFactory;

/**
 * Keys and certificates made with the JDK's keytool, PEM written by hand in every key format, and
 * an HTTPS server that asks for a client certificate and records what it was sent.
 */
final class TlsFixture implements AutoCloseable {
  static final char[] PW = "changeit".toCharArray();

  final Path dir;
  final KeyStore.PrivateKeyEntry server;
  final KeyStore.PrivateKeyEntry clientRsa;
  final KeyStore.PrivateKeyEntry clientEc;
  final AtomicReference<String> lastAuthorization = new AtomicReference<>("");
  final AtomicReference<String> lastClientSubject = new AtomicReference<>("");
  final AtomicReference<String> requiredToken = new AtomicReference<>("");
  private HttpsServer https;

  TlsFixture(Path dir) throws Exception {
    this(dir, "ip:127.0.0.1,dns:localhost");
  }

  /** With a server certificate for {@code serverNames} (keytool's SAN syntax). */
  TlsFixture(Path dir, String serverNames) throws Exception {
    this.dir = dir;
    server = generate("server", "RSA", "CN=localhost", "san=" + serverNames);
    clientRsa = generate("client-rsa", "RSA", "CN=client-rsa", null);
    clientEc = generate("client-ec", "EC", "CN=client-ec", null);
  }

  private KeyStore.PrivateKeyEntry generate(String alias, String alg, String dname, String san)
      throws Exception {
    Path store = dir.resolve(alias + ".p12");
    List<String> cmd =
        new ArrayList<>(
            List.of(
                Path.of(System.getProperty("java.home"), "bin", "keytool").toString(),
                "-genkeypair",
                "-alias",
                alias,
                "-keyalg",
                alg,
                "-dname",
                dname,
                "-validity",
                "2",
                "-storetype",
                "PKCS12",
                "-keystore",
                store.toString(),
                "-storepass",
                new String(PW)));
    if (alg.equals("RSA")) {
      cmd.addAll(List.of("-keysize", "2048"));
    } else {
      cmd.addAll(List.of("-groupname", "secp256r1"));
    }
    if (san != null) {
      cmd.addAll(List.of("-ext", san));
    }
    Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    if (!p.waitFor(60, TimeUnit.SECONDS) || p.exitValue() != 0) {
      throw new IllegalStateException("keytool failed: " + out);
    }
    KeyStore ks = KeyStore.getInstance("PKCS12");
    try (InputStream in = Files.newInputStream(store)) {
      ks.load(in, PW);
    }
    return (KeyStore.PrivateKeyEntry) ks.getEntry(alias, new KeyStore.PasswordProtection(PW));
  }

  // ---- PEM, written by hand

  static String pem(String type, byte[] der) {
    return "-----BEGIN "
        + type
        + "-----\n"
        + Base64.getMimeEncoder(64, "\n".getBytes(StandardCharsets.US_ASCII)).encodeToString(der)
        + "\n-----END "
        + type
        + "-----\n";
  }

  static String certPem(KeyStore.PrivateKeyEntry e) throws Exception {
    return pem("CERTIFICATE", e.getCertificate().getEncoded());
  }

  static String pkcs8Pem(PrivateKey key) {
    return pem("PRIVATE KEY", key.getEncoded());
  }

  /** PKCS#1: the RSAPrivateKey inside the PKCS#8 OCTET STRING. */
  static String pkcs1Pem(PrivateKey key) {
    byte[][] parts = children(key.getEncoded());
    return pem("RSA PRIVATE KEY", content(parts[2]));
  }

  /**
   * SEC1 as openssl writes it: the ECPrivateKey from inside PKCS#8, with the named curve added as
   * the [0] parameters (PKCS#8 carries the curve in the algorithm identifier instead).
   */
  static String sec1Pem(PrivateKey key) {
    byte[][] pkcs8 = children(key.getEncoded());
    byte[] curveOid = children(pkcs8[1])[1];
    byte[][] sec1 = children(content(pkcs8[2]));
    ByteArrayOutputStream body = new ByteArrayOutputStream();
    body.writeBytes(sec1[0]); // version
    body.writeBytes(sec1[1]); // private key
    body.writeBytes(tlv(0xa0, curveOid));
    for (int i = 2; i < sec1.length; i++) {
      if ((sec1[i][0] & 0xff) != 0xa0) {
        body.writeBytes(sec1[i]);
      }
    }
    return "-----BEGIN EC PARAMETERS-----\nBggqhkjOPQMBBw==\n-----END EC PARAMETERS-----\n"
        + pem("EC PRIVATE KEY", tlv(0x30, body.toByteArray()));
  }

  /** The encoded children of a DER SEQUENCE. */
  static byte[][] children(byte[] der) {
    byte[] c = content(der);
    List<byte[]> out = new ArrayList<>();
    int pos = 0;
    while (pos < c.length) {
      int[] h = header(c, pos);
      out.add(Arrays.copyOfRange(c, pos, h[0] + h[1]));
      pos = h[0] + h[1];
    }
    return out.toArray(new byte[0][]);
  }

  static byte[] content(byte[] tlv) {
    int[] h = header(tlv, 0);
    return Arrays.copyOfRange(tlv, h[0], h[0] + h[1]);
  }

  /** {content start, content length}. */
  private static int[] header(byte[] b, int pos) {
    int len = b[pos + 1] & 0xff;
    int start = pos + 2;
    if (len >= 0x80) {
      int n = len & 0x7f;
      len = 0;
      for (int i = 0; i < n; i++) {
        len = (len << 8) | (b[start + i] & 0xff);
      }
      start += n;
    }
    return new int[] {start, len};
  }

  static byte[] tlv(int tag, byte[] content) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    out.write(tag);
    if (content.length < 0x80) {
      out.write(content.length);
    } else if (content.length < 0x100) {
      out.write(0x81);
      out.write(content.length);
    } else {
      out.write(0x82);
      out.write(content.length >> 8);
      out.write(content.length & 0xff);
    }
    out.writeBytes(content);
    return out.toByteArray();
  }

  // ---- HTTPS server

  URI start() throws Exception {
    KeyStore ks = KeyStore.getInstance("PKCS12");
    ks.load(null, null);
    ks.setKeyEntry(
        "server", server.getPrivateKey(), PW, new Certificate[] {server.getCertificate()});
    KeyManagerFactory kmf = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
    kmf.init(ks, PW);
    KeyStore ts = KeyStore.getInstance("PKCS12");
    ts.load(null, null);
    ts.setCertificateEntry("rsa", clientRsa.getCertificate());
    ts.setCertificateEntry("ec", clientEc.getCertificate());
    TrustManagerFactory tmf =
        TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
    tmf.init(ts);
    SSLContext ctx = SSLContext.getInstance("TLS");
    ctx.init(kmf.getKeyManagers(), tmf.getTrustManagers(), null);
    https = HttpsServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 16);
    https.setHttpsConfigurator(
        new HttpsConfigurator(ctx) {
          @Override
          public void configure(HttpsParameters params) {
            SSLParameters p = ctx.getDefaultSSLParameters();
            p.setWantClientAuth(true);
            params.setSSLParameters(p);
          }
        });
    https.createContext(
        "/",
        ex -> {
          String auth = ex.getRequestHeaders().getFirst("Authorization");
          lastAuthorization.set(auth == null ? "" : auth);
          try {
            Certificate[] peer = ((HttpsExchange) ex).getSSLSession().getPeerCertificates();
            lastClientSubject.set(((X509Certificate) peer[0]).getSubjectX500Principal().getName());
          } catch (IOException e) {
            lastClientSubject.set("");
          }
          byte[] body;
          int code;
          String required = requiredToken.get();
          if (!required.isEmpty() && !("Bearer " + required).equals(auth)) {
            code = 401;
            body =
                "{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"status\":\"Failure\",\"reason\":\"Unauthorized\",\"code\":401}"
                    .getBytes(StandardCharsets.UTF_8);
          } else {
            code = 200;
            body =
                "{\"apiVersion\":\"v1\",\"kind\":\"Node\",\"metadata\":{\"name\":\"n1\"}}"
                    .getBytes(StandardCharsets.UTF_8);
          }
          ex.getResponseHeaders().set("Content-Type", "application/json");
          ex.sendResponseHeaders(code, body.length);
          ex.getResponseBody().write(body);
          ex.close();
        });
    https.start();
    return URI.create("https://127.0.0.1:" + https.getAddress().getPort());
  }

  @Override
  public void close() {
    if (https != null) {
      https.stop(0);
    }
  }
}
