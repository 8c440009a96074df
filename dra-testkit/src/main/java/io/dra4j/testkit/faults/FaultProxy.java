package io.dra4j.testkit.faults;

import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.ByteArrayOutputStream;
import java.io.Closeable;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import javax.net.ssl.SSLContext;

/**
 * An HTTP/1.1 proxy in front of a Kubernetes API server (the test kit's or a real kube-apiserver
 * over TLS) that injects the faults of a {@link FaultPlan}: throttling, server errors, conflicts,
 * slow answers, connection resets before and after the server processed a request, watch streams
 * cut mid-stream, and outages during which the port refuses connections. A driver points its client
 * at {@link #url()} with its own credentials: the proxy forwards the {@code Authorization} header
 * as it is, so the server sees the driver's identity.
 *
 * <p>Every request that reaches the proxy is counted with its arrival time, injected or not, so a
 * test can check the client's rate limit ({@link #rateExcess}) and report what was injected ({@link
 * #injected()}). One proxy per driver keeps those figures per client.
 */
public final class FaultProxy implements AutoCloseable {
  /** Request headers that belong to one hop, or that the JDK client sets itself. */
  private static final Set<String> HOP_HEADERS =
      Set.of(
          "connection",
          "content-length",
          "date",
          "expect",
          "from",
          "host",
          "keep-alive",
          "origin",
          "proxy-connection",
          "referer",
          "te",
          "trailer",
          "transfer-encoding",
          "upgrade",
          "via",
          "warning");

  private final String name;
  private final URI upstream;
  private final FaultPlan plan;
  private final HttpClient http;
  private final ExecutorService threads;
  private final ScheduledExecutorService ticker;
  private final Map<Socket, Closeable> connections = new ConcurrentHashMap<>();
  private final Map<Fault, AtomicLong> injected = new EnumMap<>(Fault.class);
  private final AtomicLong requests = new AtomicLong();
  private final AtomicLong watches = new AtomicLong();
  private final AtomicLong upstreamFailures = new AtomicLong();
  private final List<Long> arrivals = new ArrayList<>();
  private ServerSocket server;
  private int port;
  private boolean down;
  private volatile boolean closed;

  private FaultProxy(Builder b) {
    this.name = b.name;
    this.upstream = b.upstream;
    this.plan = b.plan;
    for (Fault f : Fault.values()) {
      injected.put(f, new AtomicLong());
    }
    HttpClient.Builder hb =
        HttpClient.newBuilder()
            .connectTimeout(Duration.ofSeconds(5))
            .followRedirects(HttpClient.Redirect.NEVER);
    if ("https".equals(upstream.getScheme())) {
      hb.version(HttpClient.Version.HTTP_2);
      b.sslContext.ifPresent(hb::sslContext);
    } else {
      hb.version(HttpClient.Version.HTTP_1_1);
    }
    this.http = hb.build();
    this.threads =
        Executors.newCachedThreadPool(
            r -> {
              Thread t = new Thread(r, "fault-proxy-" + name);
              t.setDaemon(true);
              return t;
            });
    this.ticker =
        Executors.newSingleThreadScheduledExecutor(
            r -> {
              Thread t = new Thread(r, "fault-proxy-" + name + "-ticker");
              t.setDaemon(true);
              return t;
            });
  }

  /** A proxy for {@code upstream} (e.g. {@code http://127.0.0.1:40123}), with no faults yet. */
  public static Builder builder(URI upstream) {
    return new Builder(upstream);
  }

  /** Listens on a free loopback port; faults begin when the plan is started. */
  public synchronized FaultProxy start() {
    bind();
    ticker.scheduleWithFixedDelay(this::followOutages, 50, 50, TimeUnit.MILLISECONDS);
    return this;
  }

  /** {@code http://127.0.0.1:<port>}: where a driver's client points. */
  public URI url() {
    return URI.create("http://127.0.0.1:" + port);
  }

  /** Requests received, injected ones included. */
  public long requests() {
    return requests.get();
  }

  /** Watch requests received. */
  public long watches() {
    return watches.get();
  }

  /** Requests the proxy could not forward because the server did not answer. */
  public long upstreamFailures() {
    return upstreamFailures.get();
  }

  /** Faults injected so far, by kind (outages count once each). */
  public Map<Fault, Long> injected() {
    Map<Fault, Long> out = new EnumMap<>(Fault.class);
    injected.forEach((k, v) -> out.put(k, v.get()));
    return out;
  }

  /**
   * How far the requests that reached the proxy went beyond a token bucket of {@code qps} and
   * {@code burst} (client-go's limiter, and dra4j's): 0 when every request fits, otherwise the most
   * requests that were ahead of the bucket at any moment.
   */
  public double rateExcess(double qps, int burst) {
    List<Long> times;
    synchronized (arrivals) {
      times = new ArrayList<>(arrivals);
    }
    times.sort(null);
    double tokens = burst;
    long last = times.isEmpty() ? 0 : times.get(0);
    double worst = 0;
    for (long t : times) {
      tokens = Math.min(burst, tokens + (t - last) / 1e9 * qps);
      last = t;
      tokens -= 1;
      worst = Math.max(worst, -tokens);
    }
    return worst;
  }

  /** The most requests that arrived within any one second. */
  public int peakPerSecond() {
    List<Long> times;
    synchronized (arrivals) {
      times = new ArrayList<>(arrivals);
    }
    times.sort(null);
    int best = 0;
    int from = 0;
    for (int i = 0; i < times.size(); i++) {
      while (times.get(i) - times.get(from) >= 1_000_000_000L) {
        from++;
      }
      best = Math.max(best, i - from + 1);
    }
    return best;
  }

  @Override
  public synchronized void close() {
    closed = true;
    ticker.shutdownNow();
    closeServer();
    connections.keySet().forEach(this::reset);
    threads.shutdownNow();
  }

  // ---------------------------------------------------------------------------------------------
  // Listening and outages

  private void bind() {
    try {
      ServerSocket s = new ServerSocket();
      s.setReuseAddress(true);
      s.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 128);
      port = s.getLocalPort();
      server = s;
      threads.execute(() -> accept(s));
    } catch (IOException e) {
      throw new UncheckedIOException("fault proxy " + name + ": cannot listen on " + port, e);
    }
  }

  private void accept(ServerSocket s) {
    while (!s.isClosed()) {
      try {
        Socket c = s.accept();
        connections.put(c, () -> {});
        threads.execute(() -> serve(c));
      } catch (IOException e) {
        return; // closed for an outage or for good
      }
    }
  }

  private synchronized void followOutages() {
    if (closed) {
      return;
    }
    boolean outage = plan.inOutage();
    if (outage && !down) {
      down = true;
      injected.get(Fault.OUTAGE).incrementAndGet();
      closeServer();
      connections.keySet().forEach(this::reset);
    } else if (!outage && down) {
      down = false;
      bind();
    }
  }

  private void closeServer() {
    if (server != null) {
      try {
        server.close();
      } catch (IOException e) {
        // closing anyway
      }
      server = null;
    }
  }

  /** Cuts a connection with a TCP RST, and the upstream stream it was pumping. */
  private void reset(Socket s) {
    Closeable upstreamBody = connections.remove(s);
    try {
      s.setSoLinger(true, 0);
    } catch (SocketException e) {
      // already closed
    }
    try {
      s.close();
    } catch (IOException e) {
      // closing anyway
    }
    if (upstreamBody != null) {
      try {
        upstreamBody.close();
      } catch (IOException e) {
        // closing anyway
      }
    }
  }

  // ---------------------------------------------------------------------------------------------
  // One connection

  private record Request(String method, String target, List<String[]> headers, byte[] body) {
    boolean isWatch() {
      int q = target.indexOf('?');
      return q >= 0 && ("&" + target.substring(q + 1) + "&").contains("&watch=true&");
    }

    boolean wantsClose() {
      return headers.stream()
          .anyMatch(h -> h[0].equalsIgnoreCase("connection") && h[1].equalsIgnoreCase("close"));
    }
  }

  private void serve(Socket s) {
    try {
      s.setTcpNoDelay(true);
      InputStream in = new BufferedInputStream(s.getInputStream());
      OutputStream out = new BufferedOutputStream(s.getOutputStream());
      while (!closed) {
        Optional<Request> r = read(in);
        if (r.isEmpty() || !handle(r.get(), s, out) || r.get().wantsClose()) {
          break;
        }
      }
    } catch (IOException | RuntimeException e) {
      // the client went away, or the connection was reset on purpose
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } finally {
      reset(s);
    }
  }

  /** Serves one request; false when the connection must end. */
  private boolean handle(Request r, Socket s, OutputStream out)
      throws IOException, InterruptedException {
    requests.incrementAndGet();
    synchronized (arrivals) {
      arrivals.add(System.nanoTime());
    }
    boolean watch = r.isWatch();
    if (watch) {
      watches.incrementAndGet();
    }
    Optional<Fault> fault = plan.draw(r.method(), watch);
    fault.ifPresent(f -> injected.get(f).incrementAndGet());
    Optional<Duration> cutAfter = Optional.empty();
    if (fault.isPresent()) {
      switch (fault.get()) {
        case THROTTLE:
          status(out, 429, "TooManyRequests", "Too many requests, please try again later.", 1);
          return true;
        case SERVER_ERROR:
          status(out, 500, "InternalError", "Internal error occurred: injected by the proxy", 0);
          return true;
        case UNAVAILABLE:
          status(out, 503, "ServiceUnavailable", "the server is currently unable to handle", 1);
          return true;
        case CONFLICT:
          status(
              out,
              409,
              "Conflict",
              "Operation cannot be fulfilled: the object has been modified; please apply your"
                  + " changes to the latest version and try again",
              0);
          return true;
        case SLOW:
          Thread.sleep(plan.slowDelay().toMillis());
          break;
        case RESET:
          return false;
        case RESET_AFTER:
          try {
            http.send(upstreamRequest(r, false), HttpResponse.BodyHandlers.discarding());
          } catch (IOException e) {
            upstreamFailures.incrementAndGet();
          }
          return false;
        case WATCH_DROP:
          cutAfter = Optional.of(plan.watchDropDelay());
          break;
        default:
          break;
      }
    }
    return watch ? pumpWatch(r, s, out, cutAfter) : forward(r, out);
  }

  private boolean forward(Request r, OutputStream out) throws InterruptedException {
    HttpResponse<byte[]> response;
    try {
      response = http.send(upstreamRequest(r, false), HttpResponse.BodyHandlers.ofByteArray());
    } catch (IOException e) {
      upstreamFailures.incrementAndGet();
      if (System.getProperty("dra4j.debugProxy") != null)
        System.out.println("DEBUG upstream " + r.method() + " " + r.target() + ": " + e);
      return false; // as if the server had gone: the client sees the connection end
    }
    try {
      head(out, response, Optional.of(response.body().length));
      out.write(response.body());
      out.flush();
      return true;
    } catch (IOException e) {
      return false;
    }
  }

  private boolean pumpWatch(Request r, Socket s, OutputStream out, Optional<Duration> cutAfter)
      throws InterruptedException {
    HttpResponse<InputStream> response;
    try {
      response = http.send(upstreamRequest(r, true), HttpResponse.BodyHandlers.ofInputStream());
    } catch (IOException e) {
      upstreamFailures.incrementAndGet();
      return false;
    }
    InputStream body = response.body();
    if (connections.replace(s, body) == null) {
      closeQuietly(body); // reset meanwhile (an outage)
      return false;
    }
    cutAfter.ifPresent(d -> ticker.schedule(() -> reset(s), d.toMillis(), TimeUnit.MILLISECONDS));
    try (body) {
      head(out, response, Optional.empty());
      out.flush();
      byte[] buf = new byte[8192];
      for (int n; (n = body.read(buf)) > 0; ) {
        out.write(Integer.toHexString(n).getBytes(StandardCharsets.US_ASCII));
        out.write(CRLF);
        out.write(buf, 0, n);
        out.write(CRLF);
        out.flush();
      }
      out.write("0\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
      out.flush();
      connections.replace(s, () -> {});
      return true;
    } catch (IOException e) {
      return false;
    }
  }

  private HttpRequest upstreamRequest(Request r, boolean watch) {
    String base = upstream.toString();
    if (base.endsWith("/")) {
      base = base.substring(0, base.length() - 1);
    }
    HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(base + r.target()));
    for (String[] h : r.headers()) {
      if (!HOP_HEADERS.contains(h[0].toLowerCase(Locale.ROOT))) {
        b.header(h[0], h[1]);
      }
    }
    if (!watch) {
      b.timeout(Duration.ofSeconds(60));
    }
    b.method(
        r.method(),
        r.body().length == 0
            ? HttpRequest.BodyPublishers.noBody()
            : HttpRequest.BodyPublishers.ofByteArray(r.body()));
    return b.build();
  }

  // ---------------------------------------------------------------------------------------------
  // HTTP/1.1 on the client side

  private static final byte[] CRLF = {'\r', '\n'};

  private static void head(OutputStream out, HttpResponse<?> response, Optional<Integer> length)
      throws IOException {
    StringBuilder sb = new StringBuilder();
    sb.append("HTTP/1.1 ").append(response.statusCode()).append(" X\r\n");
    response
        .headers()
        .map()
        .forEach(
            (k, values) -> {
              String lower = k.toLowerCase(Locale.ROOT);
              if (lower.startsWith(":")
                  || lower.equals("content-length")
                  || lower.equals("transfer-encoding")
                  || lower.equals("connection")
                  || lower.equals("keep-alive")) {
                return;
              }
              for (String v : values) {
                sb.append(k).append(": ").append(v).append("\r\n");
              }
            });
    if (length.isPresent()) {
      sb.append("Content-Length: ").append(length.get()).append("\r\n");
    } else {
      sb.append("Transfer-Encoding: chunked\r\n");
    }
    sb.append("\r\n");
    out.write(sb.toString().getBytes(StandardCharsets.ISO_8859_1));
  }

  /** A Kubernetes Status answer; {@code retryAfter} > 0 adds the header. */
  private static void status(
      OutputStream out, int code, String reason, String message, int retryAfter)
      throws IOException {
    String json =
        "{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"metadata\":{},\"status\":\"Failure\","
            + "\"message\":\""
            + message
            + "\",\"reason\":\""
            + reason
            + "\",\"code\":"
            + code
            + (retryAfter > 0 ? ",\"details\":{\"retryAfterSeconds\":" + retryAfter + "}" : "")
            + "}";
    byte[] body = json.getBytes(StandardCharsets.UTF_8);
    String head =
        "HTTP/1.1 "
            + code
            + " "
            + reason
            + "\r\nContent-Type: application/json\r\nContent-Length: "
            + body.length
            + "\r\n"
            + (retryAfter > 0 ? "Retry-After: " + retryAfter + "\r\n" : "")
            + "\r\n";
    out.write(head.getBytes(StandardCharsets.ISO_8859_1));
    out.write(body);
    out.flush();
  }

  /** The next request, or empty at a clean end of the connection. */
  private static Optional<Request> read(InputStream in) throws IOException {
    String line = line(in);
    if (line == null) {
      return Optional.empty();
    }
    String[] parts = line.split(" ", 3);
    if (parts.length < 3) {
      throw new IOException("not an HTTP request line: " + line);
    }
    List<String[]> headers = new ArrayList<>();
    long length = 0;
    boolean chunked = false;
    for (String h; (h = line(in)) != null && !h.isEmpty(); ) {
      int colon = h.indexOf(':');
      if (colon <= 0) {
        throw new IOException("not an HTTP header: " + h);
      }
      String k = h.substring(0, colon).trim();
      String v = h.substring(colon + 1).trim();
      headers.add(new String[] {k, v});
      if (k.equalsIgnoreCase("content-length")) {
        length = Long.parseLong(v);
      } else if (k.equalsIgnoreCase("transfer-encoding") && v.equalsIgnoreCase("chunked")) {
        chunked = true;
      }
    }
    byte[] body;
    if (chunked) {
      ByteArrayOutputStream b = new ByteArrayOutputStream();
      for (int size; (size = Integer.parseInt(required(line(in)).split(";")[0].trim(), 16)) > 0; ) {
        b.write(in.readNBytes(size));
        line(in);
      }
      while (!required(line(in)).isEmpty()) {
        // trailers
      }
      body = b.toByteArray();
    } else {
      body = in.readNBytes((int) length);
      if (body.length != length) {
        throw new EOFException("the request body ended early");
      }
    }
    return Optional.of(new Request(parts[0], parts[1], headers, body));
  }

  private static String required(String line) throws EOFException {
    if (line == null) {
      throw new EOFException("the connection ended inside a request");
    }
    return line;
  }

  /** One CRLF-terminated line (ISO-8859-1), or null at the end of the stream. */
  private static String line(InputStream in) throws IOException {
    StringBuilder sb = new StringBuilder();
    for (int c; (c = in.read()) != -1; ) {
      if (c == '\n') {
        int end = sb.length();
        if (end > 0 && sb.charAt(end - 1) == '\r') {
          sb.setLength(end - 1);
        }
        return sb.toString();
      }
      sb.append((char) c);
    }
    return sb.length() == 0 ? null : sb.toString();
  }

  private static void closeQuietly(Closeable c) {
    try {
      c.close();
    } catch (IOException e) {
      // closing anyway
    }
  }

  /** Builds a {@link FaultProxy}. */
  public static final class Builder {
    private final URI upstream;
    private FaultPlan plan = FaultPlan.builder(0).build();
    private Optional<SSLContext> sslContext = Optional.empty();
    private String name = "proxy";

    private Builder(URI upstream) {
      this.upstream = Objects.requireNonNull(upstream, "upstream");
    }

    /** The faults to inject (default none: a plain proxy). */
    public Builder plan(FaultPlan value) {
      plan = Objects.requireNonNull(value, "plan");
      return this;
    }

    /** Trust for an {@code https} upstream (default the JDK's trust store). */
    public Builder sslContext(SSLContext value) {
      sslContext = Optional.of(value);
      return this;
    }

    /** A name for thread names and messages, e.g. the node the driver runs on. */
    public Builder name(String value) {
      name = Objects.requireNonNull(value, "name");
      return this;
    }

    /** The proxy, not listening yet: call {@link FaultProxy#start()}. */
    public FaultProxy build() {
      return new FaultProxy(this);
    }
  }
}
