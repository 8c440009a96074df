package io.dra4j.kube;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.dra4j.kube.internal.ExecCredentialSource;
import io.dra4j.kube.internal.Failures;
import io.dra4j.kube.internal.Pem;
import io.dra4j.kube.internal.ServerIdentity;
import io.dra4j.kube.internal.TokenSource;
import java.io.IOException;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.PrivateKey;
import java.security.cert.CertificateException;
import java.security.cert.X509Certificate;
import java.time.Clock;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.SSLSession;
import javax.net.ssl.SSLSocket;
import javax.net.ssl.TrustManager;
import javax.net.ssl.TrustManagerFactory;
import javax.net.ssl.X509ExtendedTrustManager;

/**
 * Where the API server is and how to authenticate: server URL, bearer token (fixed, a rotating
 * file, or a kubeconfig's exec credential plugin), client certificate, trusted CAs. Built from the
 * pod's service account ({@link #inCluster()}), from a kubeconfig file ({@link
 * #fromKubeconfig(Path)}), or by hand ({@link #builder(URI)}).
 *
 * <p>Plain {@code http://} servers are accepted (kubectl does the same); the test kit's fake API
 * server uses one.
 */
public final class KubeConfig {
  /** The service-account directory every pod gets. */
  public static final Path SERVICE_ACCOUNT_DIR =
      Path.of("/var/run/secrets/kubernetes.io/serviceaccount");

  private final URI server;
  private final TokenSource tokens;
  private final Optional<SSLContext> sslContext;
  private final String namespace;
  private final String source;

  private KubeConfig(
      URI server,
      TokenSource tokens,
      Optional<SSLContext> sslContext,
      String namespace,
      String source) {
    this.server = server;
    this.tokens = tokens;
    this.sslContext = sslContext;
    this.namespace = namespace;
    this.source = source;
  }

  /** The API server's base URL, e.g. {@code https://10.0.0.1:443}. */
  public URI server() {
    return server;
  }

  /** The default namespace of the context (or the pod's namespace in-cluster). */
  public String namespace() {
    return namespace;
  }

  /** Where this configuration came from, for log and error messages. */
  public String source() {
    return source;
  }

  TokenSource tokens() {
    return tokens;
  }

  Optional<SSLContext> sslContext() {
    return sslContext;
  }

  /** In-cluster configuration from the standard service-account mount and environment. */
  public static KubeConfig inCluster() {
    return inCluster(SERVICE_ACCOUNT_DIR, System.getenv());
  }

  /**
   * In-cluster configuration from a given service-account directory ({@code token}, {@code ca.crt},
   * {@code namespace}) and environment ({@code KUBERNETES_SERVICE_HOST} / {@code _PORT}). The token
   * is re-read when the file changes, so bound-token rotation works.
   */
  public static KubeConfig inCluster(Path serviceAccountDir, Map<String, String> env) {
    String host = env.getOrDefault("KUBERNETES_SERVICE_HOST", "");
    String port = env.getOrDefault("KUBERNETES_SERVICE_PORT", "");
    if (host.isEmpty() || port.isEmpty()) {
      throw new IllegalStateException(
          "not running in a cluster: KUBERNETES_SERVICE_HOST and KUBERNETES_SERVICE_PORT must be"
              + " set (use a kubeconfig outside a cluster)");
    }
    Path tokenFile = serviceAccountDir.resolve("token");
    if (!Files.isReadable(tokenFile)) {
      throw new IllegalStateException(
          "in-cluster config: the service-account token " + tokenFile + " is not readable");
    }
    String hostPart = host.contains(":") ? "[" + host + "]" : host; // IPv6
    Builder b =
        builder(URI.create("https://" + hostPart + ":" + port))
            .tokenFile(tokenFile)
            .source("in-cluster service account " + serviceAccountDir);
    Path ca = serviceAccountDir.resolve("ca.crt");
    if (Files.isReadable(ca)) {
      b.caCertificates(read(ca, "in-cluster CA file"));
    }
    Path ns = serviceAccountDir.resolve("namespace");
    if (Files.isReadable(ns)) {
      b.namespace(read(ns, "in-cluster namespace file").trim());
    }
    return b.build();
  }

  /** The current context of a kubeconfig file; insecure-skip-tls-verify is refused. */
  public static KubeConfig fromKubeconfig(Path file) {
    return fromKubeconfig(file, Optional.empty(), false);
  }

  /**
   * A context of a kubeconfig file.
   *
   * @param file the kubeconfig; relative paths in it are resolved against its directory
   * @param context the context to use; empty for {@code current-context}
   * @param allowInsecure accept {@code insecure-skip-tls-verify: true} (the server certificate is
   *     then not checked at all); refused otherwise
   */
  public static KubeConfig fromKubeconfig(
      Path file, Optional<String> context, boolean allowInsecure) {
    JsonNode root;
    try {
      root = KubeJson.yaml().readTree(Files.readString(file, StandardCharsets.UTF_8));
    } catch (IOException e) {
      throw new IllegalArgumentException(
          "cannot read kubeconfig " + file + ": " + Failures.describe(e), e);
    }
    if (root == null || !root.isObject()) {
      throw new IllegalArgumentException("kubeconfig " + file + " is empty or not a mapping");
    }
    Path dir = file.toAbsolutePath().getParent();
    String where = "kubeconfig " + file;
    String ctxName = context.orElse(root.path("current-context").asText(""));
    if (ctxName.isEmpty()) {
      throw new IllegalArgumentException(where + ": no current-context set and none given");
    }
    JsonNode ctx = named(root, "contexts", ctxName, "context", where);
    String clusterName = ctx.path("cluster").asText("");
    String userName = ctx.path("user").asText("");
    JsonNode cluster = named(root, "clusters", clusterName, "cluster", where);
    String server = cluster.path("server").asText("");
    if (server.isEmpty()) {
      throw new IllegalArgumentException(where + ": cluster \"" + clusterName + "\" has no server");
    }
    Builder b =
        builder(URI.create(server))
            .source(where + " context " + ctxName)
            .namespace(ctx.path("namespace").asText("default"));
    if (cluster.hasNonNull("certificate-authority-data")) {
      b.caCertificates(decode(cluster.get("certificate-authority-data"), where, "cluster CA"));
    } else if (cluster.hasNonNull("certificate-authority")) {
      b.caCertificates(
          read(dir.resolve(cluster.get("certificate-authority").asText()), where + " CA file"));
    }
    if (cluster.path("insecure-skip-tls-verify").asBoolean(false)) {
      if (!allowInsecure) {
        throw new IllegalArgumentException(
            where
                + ": cluster \""
                + clusterName
                + "\" sets insecure-skip-tls-verify; refused because the server could not be"
                + " authenticated (give it certificate-authority(-data), or allow insecure"
                + " explicitly)");
      }
      b.insecureSkipTlsVerify(true);
    }
    if (!userName.isEmpty()) {
      JsonNode user = named(root, "users", userName, "user", where);
      String u = where + " user \"" + userName + "\"";
      if (user.has("auth-provider")) {
        throw new IllegalArgumentException(
            u
                + " uses auth-provider \""
                + user.path("auth-provider").path("name").asText()
                + "\", which Kubernetes clients no longer support; use the provider's exec"
                + " credential plugin instead (kubectl's own error names it, e.g."
                + " gke-gcloud-auth-plugin or kubelogin), a token file (user.tokenFile) or a client"
                + " certificate (client-certificate + client-key)");
      }
      if (user.has("exec")) {
        for (String other :
            List.of("token", "tokenFile", "client-certificate", "client-certificate-data")) {
          if (user.hasNonNull(other)) {
            throw new IllegalArgumentException(
                u + ": gives both exec and " + other + "; keep one way to authenticate");
          }
        }
        b.execCredential(execPlugin(user.get("exec"), u, dir, cluster));
      }
      if (user.has("username") || user.has("password")) {
        throw new IllegalArgumentException(
            u
                + " uses basic authentication, which Kubernetes removed; use a token file"
                + " (user.tokenFile) or a client certificate (client-certificate + client-key)");
      }
      if (user.hasNonNull("token")) {
        b.token(user.get("token").asText());
      } else if (user.hasNonNull("tokenFile")) {
        b.tokenFile(dir.resolve(user.get("tokenFile").asText()));
      }
      Optional<String> cert = Optional.empty();
      Optional<String> key = Optional.empty();
      if (user.hasNonNull("client-certificate-data")) {
        cert = Optional.of(decode(user.get("client-certificate-data"), u, "client certificate"));
      } else if (user.hasNonNull("client-certificate")) {
        cert =
            Optional.of(
                read(dir.resolve(user.get("client-certificate").asText()), u + " certificate"));
      }
      if (user.hasNonNull("client-key-data")) {
        key = Optional.of(decode(user.get("client-key-data"), u, "client key"));
      } else if (user.hasNonNull("client-key")) {
        key = Optional.of(read(dir.resolve(user.get("client-key").asText()), u + " key"));
      }
      if (cert.isPresent() != key.isPresent()) {
        throw new IllegalArgumentException(
            u + ": client-certificate and client-key must be given together");
      }
      if (cert.isPresent()) {
        b.clientCertificate(cert.get(), key.get());
      }
    }
    return b.build();
  }

  /** The exec plugin of a kubeconfig user, checked as kubectl checks it. */
  private static ExecCredentialSource.Plugin execPlugin(
      JsonNode exec, String u, Path dir, JsonNode cluster) {
    String apiVersion = exec.path("apiVersion").asText("");
    if (!ExecCredentialSource.API_VERSIONS.contains(apiVersion)) {
      throw new IllegalArgumentException(
          u
              + ": exec apiVersion \""
              + apiVersion
              + "\" is not supported; use one of "
              + String.join(", ", ExecCredentialSource.API_VERSIONS));
    }
    String command = exec.path("command").asText("");
    if (command.isEmpty()) {
      throw new IllegalArgumentException(u + ": exec has no command");
    }
    String mode = exec.path("interactiveMode").asText("");
    if (mode.isEmpty() && apiVersion.endsWith("/v1")) {
      throw new IllegalArgumentException(
          u + ": exec.interactiveMode is required for " + apiVersion + " (Never or IfAvailable)");
    }
    if (mode.equals("Always")) {
      throw new IllegalArgumentException(
          u
              + ": exec.interactiveMode is Always, but a driver has no terminal to ask on; the"
              + " plugin must work with Never or IfAvailable");
    }
    if (!mode.isEmpty() && !mode.equals("Never") && !mode.equals("IfAvailable")) {
      throw new IllegalArgumentException(
          u + ": exec.interactiveMode \"" + mode + "\" is not Never, IfAvailable or Always");
    }
    // Like kubectl: a command with a slash is a path relative to the kubeconfig's directory.
    List<String> argv = new ArrayList<>();
    argv.add(command.contains("/") ? dir.resolve(command).toString() : command);
    exec.path("args").forEach(a -> argv.add(a.asText()));
    Map<String, String> env = new LinkedHashMap<>();
    for (JsonNode e : exec.path("env")) {
      String name = e.path("name").asText("");
      if (name.isEmpty()) {
        throw new IllegalArgumentException(u + ": an exec.env entry has no name");
      }
      env.put(name, e.path("value").asText(""));
    }
    Optional<JsonNode> clusterInfo = Optional.empty();
    if (exec.path("provideClusterInfo").asBoolean(false)) {
      clusterInfo = Optional.of(clusterInfo(cluster, dir, u));
    }
    String hint = exec.path("installHint").asText("");
    return new ExecCredentialSource.Plugin(
        u,
        apiVersion,
        List.copyOf(argv),
        Map.copyOf(env),
        hint.isEmpty() ? Optional.empty() : Optional.of(hint),
        clusterInfo);
  }

  /** The ExecCredential's spec.cluster: the kubeconfig cluster in the plugin API's field names. */
  private static JsonNode clusterInfo(JsonNode cluster, Path dir, String u) {
    ObjectNode c = KubeJson.mapper().createObjectNode();
    c.put("server", cluster.path("server").asText());
    for (String field : List.of("tls-server-name", "proxy-url")) {
      if (cluster.hasNonNull(field)) {
        c.put(field, cluster.get(field).asText());
      }
    }
    for (String field : List.of("insecure-skip-tls-verify", "disable-compression")) {
      if (cluster.path(field).asBoolean(false)) {
        c.put(field, true);
      }
    }
    if (cluster.hasNonNull("certificate-authority-data")) {
      c.put("certificate-authority-data", cluster.get("certificate-authority-data").asText());
    } else if (cluster.hasNonNull("certificate-authority")) {
      String pem = read(dir.resolve(cluster.get("certificate-authority").asText()), u + " CA file");
      c.put(
          "certificate-authority-data",
          Base64.getEncoder().encodeToString(pem.getBytes(StandardCharsets.UTF_8)));
    }
    for (JsonNode ext : cluster.path("extensions")) {
      if ("client.authentication.k8s.io/exec".equals(ext.path("name").asText())) {
        c.set("config", ext.path("extension"));
      }
    }
    return c;
  }

  private static JsonNode named(
      JsonNode root, String listName, String name, String field, String where) {
    for (JsonNode entry : root.path(listName)) {
      if (name.equals(entry.path("name").asText())) {
        return entry.path(field);
      }
    }
    throw new IllegalArgumentException(
        where + ": " + listName + " has no entry named \"" + name + "\"");
  }

  private static String decode(JsonNode base64, String where, String what) {
    try {
      return new String(Base64.getMimeDecoder().decode(base64.asText()), StandardCharsets.UTF_8);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(where + ": " + what + " data is not valid base64");
    }
  }

  private static String read(Path file, String what) {
    try {
      return Files.readString(file, StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new IllegalArgumentException(
          "cannot read " + what + " " + file + ": " + Failures.describe(e), e);
    }
  }

  /** A configuration built by hand. */
  public static Builder builder(URI server) {
    return new Builder(server);
  }

  /** Builds a {@link KubeConfig}. */
  public static final class Builder {
    private final URI server;
    private TokenSource tokens = TokenSource.none();
    private Optional<String> caPem = Optional.empty();
    private Optional<String> certPem = Optional.empty();
    private Optional<String> keyPem = Optional.empty();
    private Optional<ExecCredentialSource> exec = Optional.empty();
    private boolean insecure;
    private String namespace = "default";
    private String source = "explicit configuration";

    private Builder(URI server) {
      this.server = Objects.requireNonNull(server, "server");
      String scheme = server.getScheme();
      if (!"https".equals(scheme) && !"http".equals(scheme)) {
        throw new IllegalArgumentException(
            "API server URL " + server + " must start with https:// or http://");
      }
    }

    /** A fixed bearer token. */
    public Builder token(String value) {
      tokens = TokenSource.fixed(Objects.requireNonNull(value, "token"));
      return this;
    }

    /** A bearer token file, re-read when it changes (rotation). */
    public Builder tokenFile(Path file) {
      tokens = TokenSource.file(file);
      return this;
    }

    /** Tokens or a client certificate from a kubeconfig's exec plugin, asked when needed. */
    Builder execCredential(ExecCredentialSource.Plugin plugin) {
      ExecCredentialSource source = new ExecCredentialSource(plugin, Clock.systemUTC());
      tokens = source;
      exec = Optional.of(source);
      return this;
    }

    /** PEM CA certificates to trust instead of the JDK's default trust store. */
    public Builder caCertificates(String pem) {
      caPem = Optional.of(pem);
      return this;
    }

    /** A PEM client certificate (chain) and its PEM private key (PKCS#8, PKCS#1 or SEC1). */
    public Builder clientCertificate(String certificatePem, String keyPem) {
      certPem = Optional.of(certificatePem);
      this.keyPem = Optional.of(keyPem);
      return this;
    }

    /** Trust any server certificate. Only for throw-away test clusters. */
    public Builder insecureSkipTlsVerify(boolean value) {
      insecure = value;
      return this;
    }

    public Builder namespace(String value) {
      namespace = value.isEmpty() ? "default" : value;
      return this;
    }

    public Builder source(String value) {
      source = value;
      return this;
    }

    public KubeConfig build() {
      Optional<SSLContext> ssl = Optional.empty();
      if ("https".equals(server.getScheme())) {
        ssl = Optional.of(sslContext());
      } else if (certPem.isPresent()) {
        throw new IllegalArgumentException(
            source + ": a client certificate needs an https:// server, not " + server);
      }
      if (certPem.isPresent() && exec.isPresent()) {
        throw new IllegalArgumentException(
            source + ": give a client certificate or an exec plugin, not both");
      }
      return new KubeConfig(server, tokens, ssl, namespace, source);
    }

    private SSLContext sslContext() {
      try {
        TrustManager trust;
        if (insecure) {
          trust = new TrustAll();
        } else {
          KeyStore ts = null; // no CA given: the JDK's default trust store
          if (caPem.isPresent()) {
            ts = KeyStore.getInstance(KeyStore.getDefaultType());
            ts.load(null, null);
            int i = 0;
            for (X509Certificate c : Pem.certificates(caPem.get(), source + " CA")) {
              ts.setCertificateEntry("ca-" + i++, c);
            }
          }
          TrustManagerFactory tmf =
              TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
          tmf.init(ts);
          trust = new HostChecking(tmf.getTrustManagers());
        }
        javax.net.ssl.KeyManager[] keys = null;
        if (exec.isPresent()) {
          keys = new javax.net.ssl.KeyManager[] {exec.get().keyManager()};
        } else if (certPem.isPresent()) {
          List<X509Certificate> chain =
              Pem.certificates(certPem.get(), source + " client certificate");
          PrivateKey key = Pem.privateKey(keyPem.get(), source + " client key");
          char[] pw = new char[0];
          KeyStore ks = KeyStore.getInstance("PKCS12");
          ks.load(null, null);
          ks.setKeyEntry("client", key, pw, chain.toArray(new X509Certificate[0]));
          KeyManagerFactory kmf =
              KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
          kmf.init(ks, pw);
          keys = kmf.getKeyManagers();
        }
        SSLContext ctx = SSLContext.getInstance("TLS");
        ctx.init(keys, new TrustManager[] {trust}, null);
        return ctx;
      } catch (GeneralSecurityException | IOException e) {
        throw new IllegalArgumentException(source + ": cannot set up TLS: " + e.getMessage(), e);
      }
    }
  }

  /**
   * The trust store's check of the chain, then {@link ServerIdentity}'s of the host, which replaces
   * the JDK's HTTPS endpoint identification (the transport sets none, so the delegate skips it).
   */
  private static final class HostChecking extends X509ExtendedTrustManager {
    private final X509ExtendedTrustManager chain;

    HostChecking(TrustManager[] managers) {
      this.chain =
          Arrays.stream(managers)
              .filter(X509ExtendedTrustManager.class::isInstance)
              .map(X509ExtendedTrustManager.class::cast)
              .findFirst()
              .orElseThrow(
                  () -> new IllegalStateException("the JDK offers no X.509 trust manager"));
    }

    @Override
    public void checkServerTrusted(X509Certificate[] certs, String authType, Socket socket)
        throws CertificateException {
      chain.checkServerTrusted(certs, authType, socket);
      SSLSession session = socket instanceof SSLSocket s ? s.getHandshakeSession() : null;
      ServerIdentity.check(peerHost(session), certs[0]);
    }

    @Override
    public void checkServerTrusted(X509Certificate[] certs, String authType, SSLEngine engine)
        throws CertificateException {
      chain.checkServerTrusted(certs, authType, engine);
      ServerIdentity.check(
          peerHost(engine == null ? null : engine.getHandshakeSession()), certs[0]);
    }

    /** Without a connection there is no host to check the certificate against: refused. */
    @Override
    public void checkServerTrusted(X509Certificate[] certs, String authType)
        throws CertificateException {
      throw new CertificateException("a server certificate is only checked on a connection");
    }

    private static String peerHost(SSLSession session) throws CertificateException {
      String host = session == null ? null : session.getPeerHost();
      if (host == null || host.isEmpty()) {
        throw new CertificateException("the connection names no host to check the certificate of");
      }
      return host;
    }

    @Override
    public void checkClientTrusted(X509Certificate[] certs, String authType, Socket socket)
        throws CertificateException {
      chain.checkClientTrusted(certs, authType, socket);
    }

    @Override
    public void checkClientTrusted(X509Certificate[] certs, String authType, SSLEngine engine)
        throws CertificateException {
      chain.checkClientTrusted(certs, authType, engine);
    }

    @Override
    public void checkClientTrusted(X509Certificate[] certs, String authType)
        throws CertificateException {
      chain.checkClientTrusted(certs, authType);
    }

    @Override
    public X509Certificate[] getAcceptedIssuers() {
      return chain.getAcceptedIssuers();
    }
  }

  /** Accepts every server certificate and host name: insecure-skip-tls-verify. */
  private static final class TrustAll extends X509ExtendedTrustManager {
    @Override
    public void checkClientTrusted(X509Certificate[] chain, String authType) {}

    @Override
    public void checkServerTrusted(X509Certificate[] chain, String authType) {}

    @Override
    public void checkClientTrusted(X509Certificate[] chain, String authType, Socket socket) {}

    @Override
    public void checkServerTrusted(X509Certificate[] chain, String authType, Socket socket) {}

    @Override
    public void checkClientTrusted(X509Certificate[] chain, String authType, SSLEngine engine) {}

    @Override
    public void checkServerTrusted(X509Certificate[] chain, String authType, SSLEngine engine) {}

    @Override
    public X509Certificate[] getAcceptedIssuers() {
      return new X509Certificate[0];
    }
  }
}
