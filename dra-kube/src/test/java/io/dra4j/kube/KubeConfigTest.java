package io.dra4j.kube;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.sun.net.httpserver.HttpServer;
import io.dra4j.kube.internal.Pem;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.security.PrivateKey;
import java.util.Base64;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * kubeconfig and in-cluster configuration against a real HTTPS server that checks client
 * certificates: every PEM key format, CA data and files, relative paths, token rotation, and the
 * exec credential plugins (a real process: tokens, expiry, 401, client certificates, cluster info,
 * failures), and the refusals (auth-provider, insecure-skip-tls-verify).
 */
class KubeConfigTest {
  @TempDir static Path shared;
  static TlsFixture tls;
  static URI https;

  @TempDir Path dir;

  @BeforeAll
  static void startServer() throws Exception {
    tls = new TlsFixture(shared);
    https = tls.start();
  }

  @AfterAll
  static void stopServer() {
    tls.close();
  }

  private static String b64(String s) {
    return Base64.getEncoder().encodeToString(s.getBytes(StandardCharsets.UTF_8));
  }

  private Path kubeconfig(String clusterExtra, String userBlock) throws Exception {
    return kubeconfig(https, clusterExtra, userBlock);
  }

  private Path kubeconfig(URI server, String clusterExtra, String userBlock) throws Exception {
    String yaml =
        "apiVersion: v1\n"
            + "kind: Config\n"
            + "current-context: main\n"
            + "clusters:\n"
            + "- name: c\n"
            + "  cluster:\n"
            + "    server: "
            + server
            + "\n"
            + clusterExtra
            + "contexts:\n"
            + "- name: main\n"
            + "  context: {cluster: c, user: u, namespace: team-a}\n"
            + "- name: other\n"
            + "  context: {cluster: c, user: u}\n"
            + "users:\n"
            + "- name: u\n"
            + "  user:\n"
            + userBlock;
    Path f = dir.resolve("kubeconfig");
    Files.writeString(f, yaml);
    return f;
  }

  private String caData() throws Exception {
    return "    certificate-authority-data: " + b64(TlsFixture.certPem(tls.server)) + "\n";
  }

  private static Node getNode(KubeConfig config) throws KubeException {
    try (HttpKubeClient c = HttpKubeClient.builder(config).build()) {
      return c.get(Node.TYPE, "", "n1");
    }
  }

  /** One GET, no retries: the first attempt's failure is the call's. */
  private static Node getOnce(Path kubeconfig) throws Exception {
    try (HttpKubeClient c =
        HttpKubeClient.builder(KubeConfig.fromKubeconfig(kubeconfig))
            .retries(0, java.time.Duration.ofMillis(1), java.time.Duration.ofMillis(1))
            .build()) {
      return c.get(Node.TYPE, "", "n1");
    }
  }

  @ParameterizedTest
  @ValueSource(strings = {"rsa-pkcs8", "rsa-pkcs1", "ec-sec1", "ec-pkcs8"})
  void clientCertificateInEveryKeyFormat(String format) throws Exception {
    boolean rsa = format.startsWith("rsa");
    var entry = rsa ? tls.clientRsa : tls.clientEc;
    PrivateKey key = entry.getPrivateKey();
    String keyPem;
    switch (format) {
      case "rsa-pkcs1":
        keyPem = TlsFixture.pkcs1Pem(key);
        break;
      case "ec-sec1":
        keyPem = TlsFixture.sec1Pem(key);
        break;
      default:
        keyPem = TlsFixture.pkcs8Pem(key);
    }
    // The parsed key is the very key keytool made.
    PrivateKey parsed = Pem.privateKey(keyPem, "test");
    if (parsed instanceof java.security.interfaces.ECPrivateKey ec) {
      java.security.interfaces.ECPrivateKey original = (java.security.interfaces.ECPrivateKey) key;
      assertThat(ec.getS()).isEqualTo(original.getS());
      assertThat(ec.getParams().getOrder()).isEqualTo(original.getParams().getOrder());
    } else {
      assertThat(parsed.getEncoded()).isEqualTo(key.getEncoded());
    }

    Path f =
        kubeconfig(
            caData(),
            "    client-certificate-data: "
                + b64(TlsFixture.certPem(entry))
                + "\n    client-key-data: "
                + b64(keyPem)
                + "\n");
    KubeConfig config = KubeConfig.fromKubeconfig(f);
    assertThat(config.namespace()).isEqualTo("team-a");
    assertThat(getNode(config).metadata().name()).isEqualTo("n1");
    assertThat(tls.lastClientSubject.get()).isEqualTo(rsa ? "CN=client-rsa" : "CN=client-ec");
    assertThat(tls.lastAuthorization.get()).isEmpty();
  }

  @Test
  void filesAreResolvedAgainstTheKubeconfigDirectory() throws Exception {
    Path certs = Files.createDirectories(dir.resolve("certs"));
    Files.writeString(certs.resolve("ca.crt"), TlsFixture.certPem(tls.server));
    Files.writeString(certs.resolve("client.crt"), TlsFixture.certPem(tls.clientRsa));
    Files.writeString(
        certs.resolve("client.key"), TlsFixture.pkcs1Pem(tls.clientRsa.getPrivateKey()));
    Files.writeString(certs.resolve("token"), "file-token\n");
    Path f =
        kubeconfig(
            "    certificate-authority: certs/ca.crt\n",
            "    client-certificate: certs/client.crt\n"
                + "    client-key: certs/client.key\n"
                + "    tokenFile: certs/token\n");
    getNode(KubeConfig.fromKubeconfig(f));
    assertThat(tls.lastAuthorization.get()).isEqualTo("Bearer file-token");
    assertThat(tls.lastClientSubject.get()).isEqualTo("CN=client-rsa");
  }

  @Test
  void anUntrustedServerCertificateFailsTheCall() throws Exception {
    Path f =
        kubeconfig(
            "    certificate-authority-data: " + b64(TlsFixture.certPem(tls.clientEc)) + "\n",
            "    token: t\n");
    assertThatThrownBy(() -> getOnce(f))
        .isInstanceOfSatisfying(
            KubeException.class,
            e -> {
              assertThat(e.status()).isZero();
              assertThat(e.getMessage())
                  .contains("TLS handshake failed: the server's certificate is not signed by a")
                  .doesNotContain("Exception");
            });
  }

  @Test
  void aServerCertificateForAnotherHostFailsTheCall() throws Exception {
    try (TlsFixture other =
        new TlsFixture(Files.createDirectories(dir.resolve("other")), "dns:api.example.test")) {
      Path f =
          kubeconfig(
              other.start(),
              "    certificate-authority-data: " + b64(TlsFixture.certPem(other.server)) + "\n",
              "    token: t\n");
      assertThatThrownBy(() -> getOnce(f))
          .isInstanceOfSatisfying(
              KubeException.class,
              e ->
                  assertThat(e.getMessage())
                      .contains("TLS handshake failed")
                      .contains("127.0.0.1")
                      .doesNotContain("Exception"));
      assertThat(other.lastAuthorization).as("no request reached the server").hasValue("");
    }
  }

  @Test
  void aServerCertificateNamingTheHostByDnsNameIsAccepted() throws Exception {
    try (TlsFixture named =
        new TlsFixture(Files.createDirectories(dir.resolve("named")), "dns:LocalHost")) {
      URI ip = named.start();
      URI byName = URI.create("https://localhost:" + ip.getPort());
      String ca = "    certificate-authority-data: " + b64(TlsFixture.certPem(named.server)) + "\n";
      assertThat(getOnce(kubeconfig(byName, ca, "    token: t\n")).metadata().name())
          .isEqualTo("n1");
      // the same server by its address, which the certificate does not name
      assertThatThrownBy(() -> getOnce(kubeconfig(ip, ca, "    token: t\n")))
          .isInstanceOfSatisfying(
              KubeException.class,
              e ->
                  assertThat(e.getMessage())
                      .contains("certificate is for [LocalHost], not for 127.0.0.1"));
    }
  }

  @Test
  void insecureSkipTlsVerifyIsRefusedUnlessAllowed() throws Exception {
    Path f = kubeconfig("    insecure-skip-tls-verify: true\n", "    token: t\n");
    assertThatThrownBy(() -> KubeConfig.fromKubeconfig(f))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("insecure-skip-tls-verify")
        .hasMessageContaining("certificate-authority");
    KubeConfig allowed = KubeConfig.fromKubeconfig(f, Optional.empty(), true);
    assertThat(getNode(allowed).metadata().name()).isEqualTo("n1");
    assertThat(tls.lastAuthorization.get()).isEqualTo("Bearer t");
  }

  @Test
  void authProviderUsersAreRejectedNamingTheAlternatives() throws Exception {
    Path provider = kubeconfig(caData(), "    auth-provider:\n      name: gcp\n");
    assertThatThrownBy(() -> KubeConfig.fromKubeconfig(provider))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("user \"u\"")
        .hasMessageContaining("auth-provider \"gcp\"")
        .hasMessageContaining("exec credential plugin")
        .hasMessageContaining("tokenFile");
  }

  // --- exec credential plugins: a real process, a shell script that answers from files ---

  /**
   * A plugin that counts its runs, records its KUBERNETES_EXEC_INFO, and prints answer-N.json for
   * its N-th run (else answer.json). Its folder comes from the kubeconfig's exec.env.
   */
  private String execUser(String apiVersion, String extra) throws Exception {
    Path plugin = dir.resolve("plugin");
    Files.createDirectories(plugin);
    Path script = plugin.resolve("credential.sh");
    Files.writeString(
        script,
        "#!/bin/sh\n"
            + "n=$(cat \"$PLUGIN_DIR/count\" 2>/dev/null || echo 0); n=$((n+1))\n"
            + "echo $n > \"$PLUGIN_DIR/count\"\n"
            + "printf '%s' \"$KUBERNETES_EXEC_INFO\" > \"$PLUGIN_DIR/info.json\"\n"
            + "if [ -f \"$PLUGIN_DIR/fail\" ]; then cat \"$PLUGIN_DIR/fail\" >&2; exit 3; fi\n"
            + "cat \"$PLUGIN_DIR/answer-$n.json\" 2>/dev/null || cat \"$PLUGIN_DIR/answer.json\"\n");
    script.toFile().setExecutable(true);
    return "    exec:\n"
        + "      apiVersion: "
        + apiVersion
        + "\n"
        + "      command: ./plugin/credential.sh\n" // relative to the kubeconfig, like kubectl
        + "      args: [--cluster, c]\n"
        + "      env:\n"
        + "      - {name: PLUGIN_DIR, value: "
        + plugin
        + "}\n"
        + extra;
  }

  private void answer(String file, String status) throws Exception {
    Files.writeString(
        dir.resolve("plugin").resolve(file),
        "{\"apiVersion\":\"client.authentication.k8s.io/v1\",\"kind\":\"ExecCredential\","
            + "\"status\":{"
            + status
            + "}}");
  }

  private int runs() throws Exception {
    Path count = dir.resolve("plugin/count");
    return Files.exists(count) ? Integer.parseInt(Files.readString(count).trim()) : 0;
  }

  private JsonNode execInfo() throws Exception {
    return KubeJson.mapper().readTree(Files.readString(dir.resolve("plugin/info.json")));
  }

  @Test
  void anExecTokenIsUsedAndKeptUntilItExpires() throws Exception {
    Path f =
        kubeconfig(
            caData(),
            execUser("client.authentication.k8s.io/v1", "      interactiveMode: Never\n"));
    answer("answer.json", "\"token\":\"exec-1\",\"expirationTimestamp\":\"2999-01-01T00:00:00Z\"");
    KubeConfig config = KubeConfig.fromKubeconfig(f);
    assertThat(runs()).as("the plugin runs when a call needs it, not before").isZero();
    try (HttpKubeClient c = HttpKubeClient.builder(config).build()) {
      c.get(Node.TYPE, "", "n1");
      c.get(Node.TYPE, "", "n1");
    }
    assertThat(tls.lastAuthorization.get()).isEqualTo("Bearer exec-1");
    assertThat(runs()).isEqualTo(1);
    JsonNode info = execInfo();
    assertThat(info.path("apiVersion").asText()).isEqualTo("client.authentication.k8s.io/v1");
    assertThat(info.path("kind").asText()).isEqualTo("ExecCredential");
    assertThat(info.at("/spec/interactive").asBoolean(true)).isFalse();
    assertThat(info.at("/spec/cluster").isMissingNode()).as("provideClusterInfo is off").isTrue();
  }

  @Test
  void anExpiredCredentialIsAskedForAgain() throws Exception {
    Path f = kubeconfig(caData(), execUser("client.authentication.k8s.io/v1beta1", ""));
    Files.writeString(
        dir.resolve("plugin/answer-1.json"),
        "{\"apiVersion\":\"client.authentication.k8s.io/v1beta1\",\"kind\":\"ExecCredential\","
            + "\"status\":{\"token\":\"old\",\"expirationTimestamp\":\"2000-01-01T00:00:00Z\"}}");
    Files.writeString(
        dir.resolve("plugin/answer.json"),
        "{\"apiVersion\":\"client.authentication.k8s.io/v1beta1\",\"kind\":\"ExecCredential\","
            + "\"status\":{\"token\":\"new\"}}");
    try (HttpKubeClient c = HttpKubeClient.builder(KubeConfig.fromKubeconfig(f)).build()) {
      c.get(Node.TYPE, "", "n1");
      assertThat(tls.lastAuthorization.get()).isEqualTo("Bearer old");
      c.get(Node.TYPE, "", "n1");
      assertThat(tls.lastAuthorization.get()).isEqualTo("Bearer new");
      c.get(Node.TYPE, "", "n1");
    }
    assertThat(runs()).as("no expiry: kept until a 401").isEqualTo(2);
  }

  @Test
  void aRejectedExecTokenAsksThePluginAgain() throws Exception {
    Path f =
        kubeconfig(
            caData(),
            execUser("client.authentication.k8s.io/v1", "      interactiveMode: IfAvailable\n"));
    answer("answer-1.json", "\"token\":\"revoked\"");
    answer("answer.json", "\"token\":\"fresh\"");
    tls.requiredToken.set("fresh");
    try (HttpKubeClient c = HttpKubeClient.builder(KubeConfig.fromKubeconfig(f)).build()) {
      c.get(Node.TYPE, "", "n1");
    } finally {
      tls.requiredToken.set("");
    }
    assertThat(tls.lastAuthorization.get()).isEqualTo("Bearer fresh");
    assertThat(runs()).isEqualTo(2);
  }

  @Test
  void anExecClientCertificateIsPresentedAndTheClusterIsDescribedToThePlugin() throws Exception {
    Path f =
        kubeconfig(
            caData()
                + "    tls-server-name: localhost\n"
                + "    extensions:\n"
                + "    - name: client.authentication.k8s.io/exec\n"
                + "      extension: {audience: dra4j-test}\n",
            execUser(
                "client.authentication.k8s.io/v1",
                "      interactiveMode: Never\n      provideClusterInfo: true\n"));
    String cert = TlsFixture.certPem(tls.clientEc);
    String key = TlsFixture.pkcs8Pem(tls.clientEc.getPrivateKey());
    answer(
        "answer.json",
        "\"clientCertificateData\":"
            + KubeJson.mapper().writeValueAsString(cert)
            + ",\"clientKeyData\":"
            + KubeJson.mapper().writeValueAsString(key));
    assertThat(getNode(KubeConfig.fromKubeconfig(f)).metadata().name()).isEqualTo("n1");
    assertThat(tls.lastClientSubject.get()).isEqualTo("CN=client-ec");
    assertThat(tls.lastAuthorization.get()).isEmpty();
    JsonNode cluster = execInfo().at("/spec/cluster");
    assertThat(cluster.path("server").asText()).isEqualTo(https.toString());
    assertThat(cluster.path("tls-server-name").asText()).isEqualTo("localhost");
    assertThat(cluster.path("certificate-authority-data").asText())
        .isEqualTo(b64(TlsFixture.certPem(tls.server)));
    assertThat(cluster.at("/config/audience").asText()).isEqualTo("dra4j-test");
  }

  @Test
  void execFailuresNameThePluginTheUserAndWhatItSaid() throws Exception {
    String v1 = "client.authentication.k8s.io/v1";
    Path f = kubeconfig(caData(), execUser(v1, "      interactiveMode: Never\n"));
    Files.writeString(dir.resolve("plugin/fail"), "the session expired: run acme-login");
    assertThatThrownBy(() -> getNode(KubeConfig.fromKubeconfig(f)))
        .hasMessageContaining("user \"u\"")
        .hasMessageContaining("exec credential plugin")
        .hasMessageContaining("exited with status 3")
        .hasMessageContaining("run acme-login");
    Files.delete(dir.resolve("plugin/fail"));

    answer("answer.json", "\"expirationTimestamp\":\"2999-01-01T00:00:00Z\"");
    assertThatThrownBy(() -> getNode(KubeConfig.fromKubeconfig(f)))
        .hasMessageContaining("neither status.token nor status.clientCertificateData");
    Files.writeString(dir.resolve("plugin/answer.json"), "Please log in first.");
    assertThatThrownBy(() -> getNode(KubeConfig.fromKubeconfig(f)))
        .hasMessageContaining("did not print an ExecCredential in JSON")
        .hasMessageContaining("Please log in first.");
    Files.writeString(
        dir.resolve("plugin/answer.json"),
        "{\"apiVersion\":\"client.authentication.k8s.io/v1beta1\",\"kind\":\"ExecCredential\","
            + "\"status\":{\"token\":\"t\"}}");
    assertThatThrownBy(() -> getNode(KubeConfig.fromKubeconfig(f)))
        .hasMessageContaining("apiVersion \"client.authentication.k8s.io/v1beta1\"");

    Path missing =
        kubeconfig(
            caData(),
            "    exec:\n      apiVersion: "
                + v1
                + "\n      command: acme-credential-helper-not-installed\n"
                + "      interactiveMode: Never\n"
                + "      installHint: install it with 'apt install acme-cli'\n");
    assertThatThrownBy(() -> getNode(KubeConfig.fromKubeconfig(missing)))
        .hasMessageContaining("\"acme-credential-helper-not-installed\" could not be started")
        .hasMessageContaining("apt install acme-cli");
  }

  @Test
  void execSettingsAreCheckedWhenTheKubeconfigIsRead() throws Exception {
    String cmd = "      command: acme\n";
    assertThatThrownBy(
            () ->
                KubeConfig.fromKubeconfig(
                    kubeconfig(
                        caData(),
                        "    exec:\n      apiVersion: client.authentication.k8s.io/v1alpha1\n"
                            + cmd)))
        .hasMessageContaining("v1alpha1\" is not supported")
        .hasMessageContaining("client.authentication.k8s.io/v1,");
    assertThatThrownBy(
            () ->
                KubeConfig.fromKubeconfig(
                    kubeconfig(
                        caData(),
                        "    exec:\n      apiVersion: client.authentication.k8s.io/v1\n" + cmd)))
        .hasMessageContaining("exec.interactiveMode is required");
    assertThatThrownBy(
            () ->
                KubeConfig.fromKubeconfig(
                    kubeconfig(
                        caData(),
                        "    exec:\n      apiVersion: client.authentication.k8s.io/v1\n"
                            + cmd
                            + "      interactiveMode: Always\n")))
        .hasMessageContaining("no terminal");
    assertThatThrownBy(
            () ->
                KubeConfig.fromKubeconfig(
                    kubeconfig(
                        caData(),
                        "    token: abc\n"
                            + "    exec:\n      apiVersion: client.authentication.k8s.io/v1\n"
                            + cmd
                            + "      interactiveMode: Never\n")))
        .hasMessageContaining("both exec and token");
  }

  @Test
  void contextsAndErrors() throws Exception {
    Path f = kubeconfig(caData(), "    token: t\n");
    assertThat(KubeConfig.fromKubeconfig(f, Optional.of("other"), false).namespace())
        .isEqualTo("default");
    assertThatThrownBy(() -> KubeConfig.fromKubeconfig(f, Optional.of("nope"), false))
        .hasMessageContaining("contexts has no entry named \"nope\"");
    Path certOnly =
        kubeconfig(
            caData(),
            "    client-certificate-data: " + b64(TlsFixture.certPem(tls.clientRsa)) + "\n");
    assertThatThrownBy(() -> KubeConfig.fromKubeconfig(certOnly))
        .hasMessageContaining("client-certificate and client-key must be given together");
    Path badKey =
        kubeconfig(
            caData(),
            "    client-certificate-data: "
                + b64(TlsFixture.certPem(tls.clientRsa))
                + "\n    client-key-data: "
                + b64(
                    "-----BEGIN ENCRYPTED PRIVATE KEY-----\nAAAA\n-----END ENCRYPTED PRIVATE KEY-----\n")
                + "\n");
    assertThatThrownBy(() -> KubeConfig.fromKubeconfig(badKey))
        .hasMessageContaining("encrypted private keys are not supported");
  }

  @Test
  void plainHttpServersWorkLikeKubectl() throws Exception {
    AtomicReference<String> auth = new AtomicReference<>();
    HttpServer http =
        HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 4);
    http.createContext(
        "/",
        ex -> {
          auth.set(ex.getRequestHeaders().getFirst("Authorization"));
          byte[] b = "{\"metadata\":{\"name\":\"n1\"}}".getBytes(StandardCharsets.UTF_8);
          ex.sendResponseHeaders(200, b.length);
          ex.getResponseBody().write(b);
          ex.close();
        });
    http.start();
    try {
      Path f =
          PlainKubeconfig.write(
              dir.resolve("http-kubeconfig"), http.getAddress().getPort(), "plain");
      try (HttpKubeClient c = KubeClients.fromKubeconfig(f)) {
        Node n = c.get(Node.TYPE, "", "n1");
        assertThat(n.kind()).isEqualTo("Node");
      }
      assertThat(auth.get()).isEqualTo("Bearer plain");
    } finally {
      http.stop(0);
    }
  }

  // ---- in-cluster

  private Path serviceAccount(String token) throws Exception {
    Path sa = Files.createDirectories(dir.resolve("sa"));
    Files.writeString(sa.resolve("token"), token);
    Files.writeString(sa.resolve("ca.crt"), TlsFixture.certPem(tls.server));
    Files.writeString(sa.resolve("namespace"), "dra-system");
    return sa;
  }

  private Map<String, String> env() {
    return Map.of(
        "KUBERNETES_SERVICE_HOST",
        "127.0.0.1",
        "KUBERNETES_SERVICE_PORT",
        Integer.toString(https.getPort()));
  }

  @Test
  void inClusterReadsTheRotatedTokenFile() throws Exception {
    Path sa = serviceAccount("token-one");
    KubeConfig config = KubeConfig.inCluster(sa, env());
    assertThat(config.namespace()).isEqualTo("dra-system");
    try (HttpKubeClient c = HttpKubeClient.builder(config).build()) {
      c.get(Node.TYPE, "", "n1");
      assertThat(tls.lastAuthorization.get()).isEqualTo("Bearer token-one");
      // The kubelet rotates the projected token: new content, new modification time.
      Path token = sa.resolve("token");
      Files.writeString(token, "token-two-rotated");
      Files.setLastModifiedTime(
          token, FileTime.fromMillis(Files.getLastModifiedTime(token).toMillis() + 5000));
      c.get(Node.TYPE, "", "n1");
      assertThat(tls.lastAuthorization.get()).isEqualTo("Bearer token-two-rotated");
    }
  }

  @Test
  void aRejectedTokenIsReReadOnceEvenWhenTheFileLooksUnchanged() throws Exception {
    Path sa = serviceAccount("aaaa");
    try (HttpKubeClient c = HttpKubeClient.builder(KubeConfig.inCluster(sa, env())).build()) {
      c.get(Node.TYPE, "", "n1");
      Path token = sa.resolve("token");
      FileTime mtime = Files.getLastModifiedTime(token);
      Files.writeString(token, "bbbb"); // same size
      Files.setLastModifiedTime(token, mtime); // same time: the cache cannot notice
      tls.requiredToken.set("bbbb");
      try {
        c.get(Node.TYPE, "", "n1");
        assertThat(tls.lastAuthorization.get()).isEqualTo("Bearer bbbb");
      } finally {
        tls.requiredToken.set("");
      }
    }
  }

  @Test
  void inClusterNeedsTheEnvironment() throws Exception {
    Path sa = serviceAccount("t");
    assertThatThrownBy(() -> KubeConfig.inCluster(sa, Map.of()))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("KUBERNETES_SERVICE_HOST");
    assertThatThrownBy(() -> KubeConfig.inCluster(dir.resolve("missing"), env()))
        .hasMessageContaining("token");
  }
}
