package io.dra4j.runtime.status;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.Executors;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The driver's small HTTP endpoint for probes and people: {@code /healthz} (liveness), {@code
 * /readyz} (readiness), {@code /status} (JSON: registration, published inventory, claims, health,
 * guard) and {@code /metrics} (Prometheus text format).
 *
 * <p>One thread, no dependencies: probes hit it every few seconds and it must never compete with
 * the prepare path for resources.
 */
public final class StatusServer implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(StatusServer.class);

  private final HttpServer server;

  private StatusServer(HttpServer server) {
    this.server = server;
  }

  /**
   * Starts serving.
   *
   * @param port 0 picks a free port
   * @param alive answers /healthz
   * @param ready answers /readyz
   * @param statusJson the body of /status
   * @param metricsText the body of /metrics
   */
  public static StatusServer start(
      String host,
      int port,
      BooleanSupplier alive,
      BooleanSupplier ready,
      Supplier<String> statusJson,
      Supplier<String> metricsText)
      throws IOException {
    HttpServer server = HttpServer.create(new InetSocketAddress(host, port), 16);
    server.setExecutor(
        Executors.newSingleThreadExecutor(
            r -> {
              Thread t = new Thread(r, "dra4j-status");
              t.setDaemon(true);
              return t;
            }));
    server.createContext("/healthz", ex -> probe(ex, alive));
    server.createContext("/readyz", ex -> probe(ex, ready));
    server.createContext("/status", ex -> respond(ex, 200, "application/json", statusJson.get()));
    server.createContext(
        "/metrics", ex -> respond(ex, 200, "text/plain; version=0.0.4", metricsText.get()));
    server.start();
    LOG.info("status endpoint on http://{}:{}/status", host, server.getAddress().getPort());
    return new StatusServer(server);
  }

  public int port() {
    return server.getAddress().getPort();
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
  }
}
