package io.dra4j.testkit.apiserver;

import java.nio.file.Path;
import java.time.Duration;

/**
 * Runs the fake API server standalone: {@code java -jar dra-testkit-apiserver.jar --port 0
 * --kubeconfig-out kubeconfig.yaml}. It writes a kubeconfig pointing at itself (plain http, bearer
 * token), prints the URL and serves until killed. {@code --allow-anonymous} also serves requests
 * without credentials, which is what Go clients send it (client-go uses a kubeconfig's credentials
 * only for https).
 */
public final class Main {
  private Main() {}

  public static void main(String[] args) throws InterruptedException {
    FakeApiServer.Builder b = FakeApiServer.builder();
    Path kubeconfig = null;
    for (int i = 0; i < args.length; i++) {
      String a = args[i];
      switch (a) {
        case "--port":
          b.port(Integer.parseInt(value(args, ++i, a)));
          break;
        case "--host":
          b.host(value(args, ++i, a));
          break;
        case "--token":
          b.token(value(args, ++i, a));
          break;
        case "--kubeconfig-out":
          kubeconfig = Path.of(value(args, ++i, a));
          break;
        case "--allow-anonymous":
          b.allowAnonymous(true);
          break;
        case "--history":
          b.historyLimit(Integer.parseInt(value(args, ++i, a)));
          break;
        case "--bookmark-interval-ms":
          b.bookmarkInterval(Duration.ofMillis(Long.parseLong(value(args, ++i, a))));
          break;
        case "--help":
        case "-h":
          usage();
          return;
        default:
          System.err.println("unknown argument: " + a);
          usage();
          System.exit(2);
      }
    }
    FakeApiServer server = b.build().startServer();
    if (kubeconfig != null) {
      server.writeKubeconfig(kubeconfig);
    }
    System.out.println(server.url());
    System.out.flush();
    Runtime.getRuntime().addShutdownHook(new Thread(server::stop));
    Thread.currentThread().join();
  }

  private static String value(String[] args, int i, String flag) {
    if (i >= args.length) {
      System.err.println(flag + " needs a value");
      System.exit(2);
    }
    return args[i];
  }

  private static void usage() {
    System.err.println(
        "usage: java -jar dra-testkit-apiserver.jar [--port P (0 = free)] [--host ADDR]"
            + " [--token T] [--allow-anonymous] [--kubeconfig-out FILE] [--history N]"
            + " [--bookmark-interval-ms MS]");
  }
}
