package io.dra4j.kube.internal;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.dra4j.kube.KubeJson;
import java.io.File;
import java.io.IOException;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.Principal;
import java.security.PrivateKey;
import java.security.cert.X509Certificate;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.format.DateTimeParseException;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.X509ExtendedKeyManager;

/**
 * A kubeconfig user's {@code exec} credential plugin (client.authentication.k8s.io/v1 or v1beta1),
 * run the way kubectl runs it: no terminal, {@code KUBERNETES_EXEC_INFO} in its environment (with
 * the cluster when {@code provideClusterInfo} is set), its {@code ExecCredential} answer kept until
 * its {@code expirationTimestamp} and asked again after a 401. The answer is a bearer token or a
 * client certificate; the certificate reaches TLS through {@link #keyManager()}, so a new one is
 * used from the next connection on.
 */
public final class ExecCredentialSource extends TokenSource {
  public static final List<String> API_VERSIONS =
      List.of("client.authentication.k8s.io/v1", "client.authentication.k8s.io/v1beta1");

  /** A plugin that writes nothing for this long is stopped: the driver must not hang on it. */
  static final Duration TIMEOUT = Duration.ofSeconds(30);

  /** What the kubeconfig says about the plugin. */
  public record Plugin(
      String where,
      String apiVersion,
      List<String> command,
      Map<String, String> env,
      Optional<String> installHint,
      Optional<JsonNode> cluster) {}

  private record Credential(
      Optional<String> token,
      Optional<X509Certificate[]> chain,
      Optional<PrivateKey> key,
      Optional<Instant> expiry) {}

  private final Plugin plugin;
  private final Clock clock;
  private Credential cached;

  public ExecCredentialSource(Plugin plugin, Clock clock) {
    this.plugin = plugin;
    this.clock = clock;
  }

  @Override
  public Optional<String> current() {
    return credential().token();
  }

  /** After a 401: asks the plugin again; true when it answered something else. */
  @Override
  public synchronized boolean refresh() {
    Credential before = cached;
    cached = run();
    return before == null || !cached.equals(before);
  }

  private synchronized Credential credential() {
    if (cached == null || cached.expiry().map(e -> !clock.instant().isBefore(e)).orElse(false)) {
      cached = run();
    }
    return cached;
  }

  /** Hands TLS the plugin's client certificate, when it gives one. */
  public X509ExtendedKeyManager keyManager() {
    return new X509ExtendedKeyManager() {
      private static final String ALIAS = "exec";

      @Override
      public String chooseClientAlias(String[] keyType, Principal[] issuers, Socket socket) {
        return credential().chain().isPresent() ? ALIAS : null;
      }

      @Override
      public String chooseEngineClientAlias(
          String[] keyType, Principal[] issuers, SSLEngine engine) {
        return chooseClientAlias(keyType, issuers, null);
      }

      @Override
      public X509Certificate[] getCertificateChain(String alias) {
        return credential().chain().map(X509Certificate[]::clone).orElse(null);
      }

      @Override
      public PrivateKey getPrivateKey(String alias) {
        return credential().key().orElse(null);
      }

      @Override
      public String[] getClientAliases(String keyType, Principal[] issuers) {
        return credential().chain().isPresent() ? new String[] {ALIAS} : null;
      }

      @Override
      public String[] getServerAliases(String keyType, Principal[] issuers) {
        return null;
      }

      @Override
      public String chooseServerAlias(String keyType, Principal[] issuers, Socket socket) {
        return null;
      }
    };
  }

  private Credential run() {
    String name = plugin.command().get(0);
    Path out = null;
    Path err = null;
    try {
      out = Files.createTempFile("dra4j-exec", ".out");
      err = Files.createTempFile("dra4j-exec", ".err");
      ProcessBuilder pb =
          new ProcessBuilder(plugin.command())
              .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")))
              .redirectOutput(out.toFile())
              .redirectError(err.toFile());
      pb.environment().putAll(plugin.env());
      pb.environment().put("KUBERNETES_EXEC_INFO", execInfo());
      Process p;
      try {
        p = pb.start();
      } catch (IOException e) {
        throw failure(
            "could not be started ("
                + e.getMessage()
                + ")"
                + plugin.installHint().map(h -> "; " + h.strip()).orElse(""));
      }
      if (!p.waitFor(TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)) {
        p.destroyForcibly();
        throw failure("did not answer within " + TIMEOUT.toSeconds() + " s");
      }
      String stderr = Files.readString(err, StandardCharsets.UTF_8).strip();
      if (p.exitValue() != 0) {
        throw failure(
            "exited with status " + p.exitValue() + (stderr.isEmpty() ? "" : ": " + tail(stderr)));
      }
      return parse(Files.readString(out, StandardCharsets.UTF_8));
    } catch (IOException e) {
      throw failure("could not be run: " + e.getMessage());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw failure("was interrupted");
    } finally {
      deleteQuietly(out);
      deleteQuietly(err);
    }
  }

  private String execInfo() {
    ObjectNode info = KubeJson.mapper().createObjectNode();
    info.put("apiVersion", plugin.apiVersion());
    info.put("kind", "ExecCredential");
    ObjectNode spec = info.putObject("spec");
    spec.put("interactive", false);
    plugin.cluster().ifPresent(c -> spec.set("cluster", c));
    return info.toString();
  }

  private Credential parse(String stdout) {
    JsonNode answer;
    try {
      answer = KubeJson.mapper().readTree(stdout);
    } catch (IOException e) {
      throw failure("did not print an ExecCredential in JSON (" + firstLine(stdout) + ")");
    }
    if (answer == null || !answer.isObject()) {
      throw failure("printed nothing; it must print an ExecCredential in JSON");
    }
    if (!"ExecCredential".equals(answer.path("kind").asText())) {
      throw failure("printed kind \"" + answer.path("kind").asText() + "\", not ExecCredential");
    }
    if (!plugin.apiVersion().equals(answer.path("apiVersion").asText())) {
      throw failure(
          "answered with apiVersion \""
              + answer.path("apiVersion").asText()
              + "\"; the kubeconfig asks for "
              + plugin.apiVersion());
    }
    JsonNode status = answer.path("status");
    Optional<String> token = text(status, "token");
    Optional<String> cert = text(status, "clientCertificateData");
    Optional<String> key = text(status, "clientKeyData");
    if (cert.isPresent() != key.isPresent()) {
      throw failure("gave clientCertificateData or clientKeyData without the other");
    }
    if (token.isEmpty() && cert.isEmpty()) {
      throw failure("gave neither status.token nor status.clientCertificateData");
    }
    Optional<Instant> expiry = Optional.empty();
    Optional<String> when = text(status, "expirationTimestamp");
    if (when.isPresent()) {
      try {
        expiry = Optional.of(OffsetDateTime.parse(when.get()).toInstant());
      } catch (DateTimeParseException e) {
        throw failure(
            "gave status.expirationTimestamp \"" + when.get() + "\", not an RFC 3339 time");
      }
    }
    Optional<X509Certificate[]> chain = Optional.empty();
    Optional<PrivateKey> privateKey = Optional.empty();
    if (cert.isPresent()) {
      String what = plugin.where() + " exec credential";
      chain =
          Optional.of(
              Pem.certificates(cert.get(), what + " certificate").toArray(new X509Certificate[0]));
      privateKey = Optional.of(Pem.privateKey(key.get(), what + " key"));
    }
    return new Credential(token, chain, privateKey, expiry);
  }

  private IllegalStateException failure(String what) {
    return new IllegalStateException(
        plugin.where()
            + ": the exec credential plugin \""
            + plugin.command().get(0)
            + "\" "
            + what);
  }

  private static Optional<String> text(JsonNode node, String field) {
    String v = node.path(field).asText("");
    return v.isEmpty() ? Optional.empty() : Optional.of(v);
  }

  private static String tail(String text) {
    return text.length() <= 2000 ? text : "..." + text.substring(text.length() - 2000);
  }

  private static String firstLine(String text) {
    String s = text.strip();
    int nl = s.indexOf('\n');
    s = nl < 0 ? s : s.substring(0, nl);
    return s.isEmpty()
        ? "empty output"
        : "it printed: " + (s.length() > 200 ? s.substring(0, 200) : s);
  }

  private static void deleteQuietly(Path p) {
    if (p != null) {
      try {
        Files.deleteIfExists(p);
      } catch (IOException e) {
        // A leftover temporary file is harmless.
      }
    }
  }
}
