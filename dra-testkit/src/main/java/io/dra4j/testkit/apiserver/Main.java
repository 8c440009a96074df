package io.dra4j.testkit.apiserver;

import java.io.PrintWriter;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * Runs the fake API server standalone: {@code java -jar dra-testkit-apiserver.jar --port 0
 * --kubeconfig-out kubeconfig.yaml --node node-1}. It prints its URL as the first line of standard
 * output, writes a kubeconfig pointing at itself (plain http, bearer token) that kubectl and
 * drivers use, and serves until killed.
 */
@Command(
    name = "dra-testkit-apiserver",
    showDefaultValues = true,
    sortOptions = false,
    description = {
      "The dra4j test kit's Kubernetes API server, in memory: resource.k8s.io/v1 ResourceSlices,"
          + " ResourceClaims, ResourceClaimTemplates, DeviceClasses, DeviceTaintRules and core/v1"
          + " Nodes and Pods, with watches, discovery and kubectl's table output.",
      "Prints its URL on the first line of standard output and serves until killed."
    })
public final class Main implements Callable<Integer> {
  @Option(
      names = {"-h", "--help"},
      usageHelp = true,
      description = "print this help")
  boolean help;

  @Option(
      names = "--port",
      paramLabel = "PORT",
      defaultValue = "0",
      description = "port to listen on; 0 picks a free one")
  int port;

  @Option(
      names = "--host",
      paramLabel = "ADDRESS",
      defaultValue = FakeApiServer.Builder.DEFAULT_HOST,
      description = "address to listen on")
  String host;

  @Option(
      names = "--token",
      paramLabel = "TOKEN",
      description = "bearer token clients must send (default: a random one, in the kubeconfig)")
  Optional<String> token;

  @Option(
      names = "--allow-anonymous",
      description =
          "also serve requests without credentials: client-go (kubectl, Go drivers) sends a"
              + " kubeconfig's token only over https, and this server speaks plain http (a wrong"
              + " token is refused either way)")
  boolean allowAnonymous;

  @Option(
      names = "--kubeconfig-out",
      paramLabel = "FILE",
      description =
          "write a kubeconfig for this server here (for kubectl --kubeconfig FILE and for"
              + " drivers' --kubeconfig)")
  Optional<Path> kubeconfig;

  @Option(
      names = "--node",
      paramLabel = "NAME",
      description =
          "create a Node, as its kubelet would (repeatable): a driver publishes ResourceSlices"
              + " only once its Node exists")
  List<String> nodes = new ArrayList<>();

  @Option(
      names = "--history",
      paramLabel = "N",
      defaultValue = "" + FakeApiServer.Builder.DEFAULT_HISTORY_LIMIT,
      description =
          "events a watch can resume from; older resourceVersions get 410 Expired, as from a"
              + " compacted etcd")
  int history;

  @Option(
      names = "--bookmark-interval-ms",
      paramLabel = "MS",
      defaultValue = "" + FakeApiServer.Builder.DEFAULT_BOOKMARK_INTERVAL_MS,
      description = "how often watches that asked for bookmarks get one")
  long bookmarkIntervalMs;

  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  private final PrintWriter out;
  private final PrintWriter err;

  private Main(PrintWriter out, PrintWriter err) {
    this.out = out;
    this.err = err;
  }

  public static void main(String[] args) {
    int status = run(args, new PrintWriter(System.out, true), new PrintWriter(System.err, true));
    if (status != 0) {
      System.exit(status);
    }
    // 0: --help or --version printed; the server's own threads keep serving otherwise.
  }

  /** Parses and runs; returns only for --help, --version and errors (0, 2, 1). */
  static int run(String[] args, PrintWriter out, PrintWriter err) {
    CommandLine cli = new CommandLine(new Main(out, err));
    cli.setOut(out);
    cli.setErr(err);
    return cli.execute(args);
  }

  @Override
  public Integer call() throws InterruptedException {
    if (history < 1) {
      throw new CommandLine.ParameterException(
          spec.commandLine(), "--history " + history + " must be at least 1");
    }
    FakeApiServer.Builder b =
        FakeApiServer.builder()
            .port(port)
            .host(host)
            .historyLimit(history)
            .allowAnonymous(allowAnonymous)
            .bookmarkInterval(Duration.ofMillis(bookmarkIntervalMs));
    token.ifPresent(b::token);
    FakeApiServer server = b.build().startServer();
    Runtime.getRuntime().addShutdownHook(new Thread(server::stop, "fake-apiserver-shutdown"));
    for (String node : nodes) {
      server.putNode(node);
    }
    // The kubeconfig exists once the URL is printed: a script may use it on reading the line.
    kubeconfig.ifPresent(server::writeKubeconfig);
    out.println(server.url());
    if (kubeconfig.isPresent()) {
      err.println(
          "kubeconfig "
              + kubeconfig.get()
              + (allowAnonymous
                  ? "; try: kubectl --kubeconfig "
                      + kubeconfig.get()
                      + " get resourceslices,resourceclaims,deviceclasses,nodes"
                  : "; kubectl needs --allow-anonymous: it sends no token over plain http"));
    } else {
      err.println(
          "no kubeconfig written (--kubeconfig-out FILE writes one); token " + server.token());
    }
    Thread.currentThread().join();
    return 0;
  }
}
