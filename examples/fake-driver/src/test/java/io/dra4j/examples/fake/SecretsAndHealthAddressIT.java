package io.dra4j.examples.fake;

import static org.assertj.core.api.Assertions.assertThat;

import io.dra4j.runtime.testsupport.ListeningSockets;
import io.dra4j.testkit.kubelet.KubeletSimulator;
import java.io.IOException;
import java.net.ConnectException;
import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.NetworkInterface;
import java.net.Socket;
import java.net.http.HttpClient;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The shipped jar's {@code run} as real processes, with credentials that would be recognized
 * anywhere they leaked: the token never reaches the driver's output (at debug and at trace, while
 * refused and once accepted) nor its endpoints, and the health port listens only where {@code
 * --health-address} says (everywhere when it is not given).
 */
class SecretsAndHealthAddressIT {
  /** What the API server accepts: in one driver's kubeconfig, and in the other's token file. */
  private static final String SECRET = "s3cr3t-7f1c9a-dra4j-token-value";

  /** A token the API server refuses: the token file holds it before it is rotated to SECRET. */
  private static final String WRONG_SECRET = "wr0ng-4be2d7-dra4j-token-value";

  /** 127.0.0.1 in /proc/net/tcp, and as ::ffff:127.0.0.1 (an IPv6 socket) in /proc/net/tcp6. */
  private static final Set<String> LOOPBACK_V4 =
      Set.of("0100007F", "0000000000000000FFFF00000100007F");

  /** 0.0.0.0 and :: (the wildcard of an IPv4 or a dual-stack IPv6 socket). */
  private static final Set<String> WILDCARD =
      Set.of("00000000", "00000000000000000000000000000000");

  private final JarProcesses processes = new JarProcesses();
  private final List<AutoCloseable> closeables = new ArrayList<>();

  @TempDir Path dir;

  @AfterEach
  void stop() throws Exception {
    processes.killAll();
    for (AutoCloseable c : closeables) {
      c.close();
    }
  }

  @Test
  void theTokenIsNeverLoggedNorServedAndTheHealthPortListensWhereConfigured() throws Exception {
    Path apiJar = Path.of("../../dra-testkit/target/dra-testkit-apiserver.jar");
    assertThat(apiJar).exists();
    Path apiLog = dir.resolve("api.log");
    processes.start(
        apiLog,
        "-jar",
        apiJar.toString(),
        "--port",
        "0",
        "--token",
        SECRET,
        "--node",
        "node-1",
        "--node",
        "node-2");
    processes.await(() -> JarProcesses.read(apiLog).startsWith("http://"), "the API server's URL");
    String url = JarProcesses.read(apiLog).lines().findFirst().orElseThrow().trim();

    // Driver 1: the token in its kubeconfig, debug logs, the health port on 127.0.0.1 only.
    Path inline =
        Files.writeString(dir.resolve("kubeconfig-token"), kubeconfig(url, "token: " + SECRET));
    Path log1 = dir.resolve("driver-1.log");
    driver(log1, "node-1", inline, "debug", "--health-address", "127.0.0.1");
    // Driver 2: a token file (what the in-cluster configuration reads) that holds a refused token
    // first, trace logs, the default health address.
    Path tokenFile = Files.writeString(dir.resolve("token"), WRONG_SECRET + "\n");
    Path fromFile =
        Files.writeString(
            dir.resolve("kubeconfig-file"), kubeconfig(url, "tokenFile: " + tokenFile));
    Path log2 = dir.resolve("driver-2.log");
    driver(log2, "node-2", fromFile, "trace");

    processes.await(
        () -> JarProcesses.read(log2).contains("401 Unauthorized"), "the informers' 401 warning");
    // Rotation: the file is re-read when it changes.
    Files.writeString(tokenFile, SECRET + "\n");

    int port1 = statusPort(log1, "status endpoint on 127\\.0\\.0\\.1:(\\d+): /healthz");
    int port2 = statusPort(log2, "status endpoint on port (\\d+) of every local address: /healthz");
    HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    processes.await(
        () -> JarProcesses.get(http, port1, "/readyz").statusCode() == 200, "driver 1 ready");
    processes.await(
        () -> JarProcesses.get(http, port2, "/readyz").statusCode() == 200, "driver 2 ready");

    for (int port : List.of(port1, port2)) {
      for (String path : List.of("/healthz", "/readyz", "/status", "/metrics")) {
        HttpResponse<String> r = JarProcesses.get(http, port, path);
        assertThat(r.statusCode()).as(path).isEqualTo(200);
        assertThat(r.body()).as(path).doesNotContain(SECRET).doesNotContain(WRONG_SECRET);
        assertThat(r.headers().map().toString()).as(path).doesNotContain(SECRET);
      }
      assertThat(JarProcesses.get(http, port, "/status").body()).contains("\"registered\" : true");
    }

    // Driver 1 listens on 127.0.0.1 alone; driver 2 on every local address.
    assertThat(ListeningSockets.addresses(port1)).hasSize(1).isSubsetOf(LOOPBACK_V4);
    assertThat(ListeningSockets.addresses(port2)).hasSize(1).isSubsetOf(WILDCARD);
    Optional<InetAddress> other = nonLoopbackAddress();
    if (other.isPresent()) {
      assertThat(connects(other.get(), port1)).as("driver 1 on " + other.get()).isFalse();
      assertThat(connects(other.get(), port2)).as("driver 2 on " + other.get()).isTrue();
    }

    for (Process p : processes.all().subList(1, processes.all().size())) {
      p.destroy(); // SIGTERM: the shutdown's lines are logs too
      assertThat(p.waitFor(30, TimeUnit.SECONDS)).isTrue();
    }
    for (Path log : List.of(log1, log2)) {
      String text = JarProcesses.read(log);
      assertThat(text).as(log.toString()).contains(" DEBUG ").contains("stopping");
      assertThat(text).as(log.toString()).doesNotContain(SECRET).doesNotContain(WRONG_SECRET);
    }
    assertThat(JarProcesses.read(log2)).contains(" TRACE ");
  }

  private void driver(Path log, String node, Path kubeconfig, String level, String... more)
      throws IOException {
    Path registry = Files.createDirectories(dir.resolve(node + "/registry"));
    closeables.add(KubeletSimulator.start(registry));
    List<String> args =
        new ArrayList<>(
            List.of(
                "-jar",
                System.getProperty("dra4j.jar"),
                "run",
                "--node-name",
                node,
                "--kubeconfig",
                kubeconfig.toString(),
                "--registrar-dir",
                registry.toString(),
                "--plugin-dir",
                dir.resolve(node + "/plugins/gpu.example.com").toString(),
                "--cdi-dir",
                Files.createDirectories(dir.resolve(node + "/cdi")).toString(),
                "--health-port",
                "0",
                "--log-level",
                level,
                "--devices",
                "2"));
    Collections.addAll(args, more);
    processes.start(log, args.toArray(String[]::new));
  }

  private static String kubeconfig(String server, String credential) {
    return String.join(
        "\n",
        "apiVersion: v1",
        "kind: Config",
        "clusters:",
        "- name: test",
        "  cluster:",
        "    server: " + server,
        "users:",
        "- name: driver",
        "  user:",
        "    " + credential,
        "contexts:",
        "- name: test",
        "  context:",
        "    cluster: test",
        "    user: driver",
        "current-context: test",
        "");
  }

  /** The port in the driver's "status endpoint on ..." line, which must match {@code line}. */
  private int statusPort(Path log, String line) throws Exception {
    Pattern p = Pattern.compile(line);
    processes.await(() -> p.matcher(JarProcesses.read(log)).find(), "a line matching " + line);
    Matcher m = p.matcher(JarProcesses.read(log));
    assertThat(m.find()).isTrue();
    return Integer.parseInt(m.group(1));
  }

  private static boolean connects(InetAddress address, int port) throws IOException {
    try (Socket s = new Socket()) {
      s.connect(new InetSocketAddress(address, port), 5000);
      return true;
    } catch (ConnectException e) {
      return false;
    }
  }

  /** An IPv4 address of this machine other than loopback, where there is one. */
  private static Optional<InetAddress> nonLoopbackAddress() throws IOException {
    for (NetworkInterface nic : Collections.list(NetworkInterface.getNetworkInterfaces())) {
      if (nic.isUp() && !nic.isLoopback()) {
        for (InetAddress a : Collections.list(nic.getInetAddresses())) {
          if (a instanceof Inet4Address) {
            return Optional.of(a);
          }
        }
      }
    }
    return Optional.empty();
  }
}
