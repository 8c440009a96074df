package io.dra4j.launcher.internal.status;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpHandler;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.net.BindException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The driver's small HTTP endpoint for probes and people: {@code /healthz} (liveness), {@code
 * /readyz} (readiness), {@code /status} (JSON: registration, published inventory, claims, health,
 * guard) and {@code /metrics} (Prometheus text format, served by the handler it is given).
 *
 * <p>One thread: probes and scrapes hit it every few seconds and it must never compete with the
 * prepare path for resources.
 */
public final class StatusServer implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(StatusServer.class);

  private final HttpServer server;
  private final ExecutorService executor;

  private StatusServer(HttpServer server, ExecutorService executor) {
    this.server = server;
    this.executor = executor;
  }

  /**
   * Starts serving.
   *
   * @param address where to listen: one address, or the wildcard for every local address (IPv4 and
   *     IPv6); port 0 picks a free port
   * @param alive answers /healthz
   * @param ready answers /readyz
   * @param statusJson the body of /status
   * @param metrics answers /metrics (the Prometheus client's handler of the driver's registry)
   */
  public static StatusServer start(
      InetSocketAddress address,
      BooleanSupplier alive,
      BooleanSupplier ready,
      Supplier<String> statusJson,
      HttpHandler metrics)
      throws IOException {
    HttpServer server;
    try {
      server = HttpServer.create(address, 16);
    } catch (BindException e) {
      // Which address and port, and that they are the driver's flags: the JDK says neither.
      throw new IOException(
          "the status endpoint cannot listen on "
              + where(address)
              + " (--health-address, --health-port): "
              + e.getMessage(),
          e);
    }
    ExecutorService executor =
        Executors.newSingleThreadExecutor(
            r -> {
              Thread t = new Thread(r, "dra4j-status");
              t.setDaemon(true);
              return t;
            });
    server.setExecutor(executor);
    server.createContext("/healthz", ex -> probe(ex, alive));
    server.createContext("/readyz", ex -> probe(ex, ready));
    server.createContext("/status", ex -> report(ex, "application/json", statusJson));
    server.createContext("/metrics", metrics);
    server.start();
    LOG.info(
        "status endpoint on {}: /healthz /readyz /status /metrics", where(server.getAddress()));
    return new StatusServer(server, executor);
  }

  public int port() {
    return port(server);
  }

  private static int port(HttpServer server) {
    return server.getAddress().getPort();
  }

  /** {@code 127.0.0.1:8081}, {@code [::1]:8081}, or {@code port 8081 of every local address}. */
  private static String where(InetSocketAddress a) {
    if (a.getAddress() == null || a.getAddress().isAnyLocalAddress()) {
      return "port " + a.getPort() + " of every local address";
    }
    String host = a.getAddress().getHostAddress();
    return (host.contains(":") ? "[" + host + "]" : host) + ":" + a.getPort();
  }

  private static void report(HttpExchange ex, String type, Supplier<String> body)
      throws IOException {
    String text;
    try {
      text = body.get();
    } catch (RuntimeException e) {
      // A report that cannot be built is a server error, not a silently dropped connection.
      respond(ex, 500, "text/plain", "error: " + e + "\n");
      return;
    }
    respond(ex, 200, type, text);
  }

  private static void probe(HttpExchange ex, BooleanSupplier check) throws IOException {
    boolean ok;
    try {
      ok = check.getAsBoolean();
    } catch (RuntimeException e) {
      ok = false;
    }
    respond(ex, ok ? 200 : 503, "text/plain", ok ? "ok\n" : "not ok\n");
  }

  private static void respond(HttpExchange ex, int code, String type, String body)
      throws IOException {
    byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
    ex.getResponseHeaders().set("Content-Type", type);
    ex.sendResponseHeaders(code, bytes.length);
    try (OutputStream out = ex.getResponseBody()) {
      out.write(bytes);
    }
  }

  @Override
  public void close() {
    server.stop(0);
    executor.shutdownNow();
  }
}
