package io.dra4j.kube.internal;

import java.io.BufferedOutputStream;
import java.io.ByteArrayOutputStream;
import java.io.Closeable;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.ConnectException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.net.URI;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLParameters;
import javax.net.ssl.SSLSocket;
import javax.net.ssl.SSLSocketFactory;

/**
 * HTTP/1.1 to one API server over blocking sockets, one exchange at a time per connection, on the
 * calling thread; connections are kept alive and pooled.
 *
 * <p>Why not the JDK's {@code java.net.http} client: it hands every request to its selector thread
 * and every response to a worker thread. On the kubelet's path (a claim GET and a status apply per
 * prepare) that was about twice the CPU of a blocking exchange and four thread wake-ups per prepare
 * (node benchmark, benchmarks/README.md). An API server speaks HTTP/1.1 to any client that does not
 * offer HTTP/2; a watch holds a connection of its own.
 *
 * <p><b>Stale connections.</b> The server may close a pooled connection while it is idle (an idle
 * timeout, a restart). Before a pooled connection is reused, a read that does not wait tells
 * whether the server closed it; if so it is dropped. What is left is a close that crosses the
 * request on the wire: an exchange on a reused connection that ends before any byte of the answer
 * arrived throws {@link StaleConnectionException}, and the caller decides whether to send it again
 * (on a new connection: the pool is emptied then). A request that must not be repeated takes a
 * pooled connection only if it answered a moment ago ({@link #RECENT}), else a new one ({@code
 * reuse = false}). Connections idle longer than {@link #MAX_IDLE} are closed, not reused.
 *
 * <p>Thread-safe. Not API: {@link io.dra4j.kube.HttpKubeClient} is its only user.
 */
public final class Http1Transport implements Closeable {

  /**
   * How long a pooled connection may sit idle before it is closed instead of reused: under the 30 s
   * after which the JDK's HTTP server (the test kit's) and many proxies close idle connections.
   */
  static final Duration MAX_IDLE = Duration.ofSeconds(20);

  /** A connection that answered this recently is reused even for a request never to be repeated. */
  static final Duration RECENT = Duration.ofSeconds(1);

  /** Idle connections kept; more are closed when they come back (a burst of concurrent calls). */
  static final int MAX_POOLED = 16;

  /** The longest status or header line read; a longer one is not an API server's answer. */
  private static final int MAX_LINE = 64 * 1024;

  private static final int MAX_HEADERS = 256;

  private final String host;
  private final int port;
  private final String hostHeader;
  private final String basePath;
  private final Optional<SSLSocketFactory> tls;
  private final int connectTimeoutMillis;
  // LIFO: the most recently used connection is the most likely to be alive.
  private final ArrayDeque<Connection> idle = new ArrayDeque<>();
  private final Set<Connection> open = ConcurrentHashMap.newKeySet();
  private volatile boolean closed;

  /**
   * @param server the API server's base URL; its path, if any, prefixes every request's target
   * @param ssl the TLS context for an https server (trust, client keys)
   */
  public Http1Transport(URI server, Optional<SSLContext> ssl, Duration connectTimeout) {
    String h = server.getHost();
    if (h == null || h.isEmpty()) {
      throw new IllegalArgumentException("the API server URL " + server + " names no host");
    }
    boolean https = "https".equals(server.getScheme());
    if (https && ssl.isEmpty()) {
      throw new IllegalArgumentException("the API server URL " + server + " needs TLS settings");
    }
    this.host = h.startsWith("[") ? h.substring(1, h.length() - 1) : h;
    this.port = server.getPort() > 0 ? server.getPort() : https ? 443 : 80;
    this.hostHeader = server.getPort() > 0 ? h + ":" + server.getPort() : h;
    String path = server.getRawPath() == null ? "" : server.getRawPath();
    this.basePath = path.endsWith("/") ? path.substring(0, path.length() - 1) : path;
    this.tls = https ? ssl.map(SSLContext::getSocketFactory) : Optional.empty();
    this.connectTimeoutMillis = (int) Math.min(Integer.MAX_VALUE, connectTimeout.toMillis());
  }

  /**
   * One request.
   *
   * @param target the path below the server's base URL, with its query (already encoded)
   * @param headers name and value pairs, e.g. {@code List.of("Accept", "application/json")}
   * @param body the request body; empty for none
   * @param reuse whether a pooled connection may carry it whatever its idle time (false: only one
   *     that answered within {@link #RECENT})
   */
  public record Request(
      String method, String target, List<String> headers, byte[] body, boolean reuse) {}

  /**
   * An answer. {@code headers} are keyed by lower-case name (the first value of each). For {@link
   * #exchange} the body is read ({@code stream} is empty); for {@link #open} with a 2xx status the
   * body is {@code stream}, which owns the connection until closed.
   */
  public record Response(int status, Map<String, String> headers, byte[] body, InputStream stream) {
    public Optional<String> header(String lowerCaseName) {
      return Optional.ofNullable(headers.get(lowerCaseName));
    }
  }

  /** A reused connection ended before any byte of the answer: see the class comment. */
  public static final class StaleConnectionException extends IOException {
    StaleConnectionException(IOException cause) {
      super("the server closed a kept-alive connection: " + cause.getMessage(), cause);
    }
  }

  /**
   * Sends the request and reads the whole answer before {@code deadline} ({@link System#nanoTime}).
   *
   * @throws ConnectException when no connection could be made (nothing was sent)
   * @throws SocketTimeoutException when the answer did not come before the deadline
   * @throws StaleConnectionException see the class comment
   */
  public Response exchange(Request request, long deadline) throws IOException {
    return send(request, deadline, false);
  }

  /**
   * Sends the request; a 2xx answer's body is returned as a stream without a deadline (a watch),
   * any other answer is read whole, as by {@link #exchange}.
   */
  public Response open(Request request, long deadline) throws IOException {
    return send(request, deadline, true);
  }

  /** Closes every connection, pooled and streaming; later requests fail. */
  @Override
  public void close() {
    closed = true;
    synchronized (this) {
      idle.clear();
    }
    for (Connection c : open) {
      c.close();
    }
  }

  private Response send(Request request, long deadline, boolean stream) throws IOException {
    if (closed) {
      throw new IOException("the client is closed");
    }
    byte[] head = requestHead(request);
    Connection c = pooled(request.reuse());
    boolean reused = c != null;
    if (c == null) {
      c = connect(deadline);
    }
    boolean keep = false;
    try {
      c.deadline(deadline);
      Head answer;
      try {
        c.write(head, request.body());
        answer = c.readHead();
      } catch (SocketTimeoutException e) {
        throw e;
      } catch (IOException e) {
        if (reused && !c.answered) {
          evictIdle();
          throw new StaleConnectionException(e);
        }
        throw e;
      }
      if (stream && answer.status / 100 == 2) {
        c.deadline(0);
        InputStream body = c.body(answer, request.method());
        keep = true; // the stream owns it now
        return new Response(answer.status, answer.headers, new byte[0], body);
      }
      byte[] body = c.readBody(answer, request.method());
      // Bytes beyond the body would be read as the next answer's start: such a connection is done.
      if (answer.keepAlive && c.bodyComplete && c.drained()) {
        release(c);
        keep = true;
      }
      return new Response(answer.status, answer.headers, body, InputStream.nullInputStream());
    } finally {
      if (!keep) {
        c.close();
      }
    }
  }

  private byte[] requestHead(Request r) {
    StringBuilder sb = new StringBuilder(256);
    sb.append(r.method()).append(' ').append(basePath).append(r.target()).append(" HTTP/1.1\r\n");
    header(sb, "Host", hostHeader);
    List<String> h = r.headers();
    for (int i = 0; i + 1 < h.size(); i += 2) {
      header(sb, h.get(i), h.get(i + 1));
    }
    if (r.body().length > 0 || !"GET".equals(r.method())) {
      sb.append("Content-Length: ").append(r.body().length).append("\r\n");
    }
    return sb.append("\r\n").toString().getBytes(StandardCharsets.UTF_8);
  }

  private static void header(StringBuilder sb, String name, String value) {
    for (int i = 0; i < value.length(); i++) {
      char ch = value.charAt(i);
      if (ch == '\r' || ch == '\n') {
        // A token file or user agent with a line break would start a header of its own.
        throw new IllegalArgumentException(
            "the " + name + " header's value contains a line break; it cannot be sent");
      }
    }
    sb.append(name).append(": ").append(value).append("\r\n");
  }

  // ---------------------------------------------------------------------------------------------
  // Pool

  private Connection pooled(boolean reuse) {
    while (true) {
      long now = System.nanoTime();
      List<Connection> expired = new ArrayList<>(0);
      Connection candidate = null;
      synchronized (this) {
        // The oldest sit at the head: drop those idle too long.
        while (!idle.isEmpty() && now - idle.peekFirst().idleSince > MAX_IDLE.toNanos()) {
          expired.add(idle.pollFirst());
        }
        Connection last = idle.peekLast();
        if (last != null && (reuse || now - last.idleSince <= RECENT.toNanos())) {
          candidate = idle.pollLast();
        }
      }
      expired.forEach(Connection::close);
      if (candidate == null || candidate.open()) {
        return candidate;
      }
      candidate.close();
    }
  }

  private void release(Connection c) {
    c.idleSince = System.nanoTime();
    c.answered = false;
    boolean pooled = false;
    synchronized (this) {
      if (!closed && idle.size() < MAX_POOLED) {
        idle.addLast(c);
        pooled = true;
      }
    }
    if (!pooled) {
      c.close();
    }
  }

  /** One pooled connection turned out closed: the others idled as long, or the server restarted. */
  private void evictIdle() {
    List<Connection> all;
    synchronized (this) {
      all = new ArrayList<>(idle);
      idle.clear();
    }
    all.forEach(Connection::close);
  }

  private Connection connect(long deadline) throws IOException {
    long left = (deadline - System.nanoTime()) / 1_000_000;
    if (left <= 0) {
      throw new SocketTimeoutException("no time left before the call's deadline");
    }
    int timeout = (int) Math.min(connectTimeoutMillis, left);
    // A channel's socket: blocking for the exchanges, and a read that does not wait tells whether
    // the server closed it while it sat in the pool (Connection.open).
    SocketChannel channel = SocketChannel.open();
    Socket socket = channel.socket();
    try {
      socket.setTcpNoDelay(true);
      socket.setKeepAlive(true);
      socket.connect(new InetSocketAddress(host, port), timeout);
    } catch (IOException e) {
      closeQuietly(socket);
      // Nothing was sent, whatever went wrong: the caller may try again with any request.
      String reason =
          e instanceof SocketTimeoutException
              ? "no answer from " + hostHeader + " within " + timeout + " ms"
              : e instanceof java.net.UnknownHostException
                  ? "unknown host " + host
                  : e.getMessage() == null
                      ? "connection to " + hostHeader + " refused"
                      : e.getMessage() + " (" + hostHeader + ")";
      ConnectException ce = new ConnectException(reason);
      ce.initCause(e);
      throw ce;
    }
    if (tls.isEmpty()) {
      return track(new Connection(channel, socket));
    }
    try {
      SSLSocket s = (SSLSocket) tls.get().createSocket(socket, host, port, true);
      SSLParameters p = s.getSSLParameters();
      // No endpoint identification here: KubeConfig's trust manager checks that the certificate
      // names the host (ServerIdentity), without the JDK's load of its whole cacerts file.
      p.setApplicationProtocols(new String[] {"http/1.1"});
      s.setSSLParameters(p);
      s.setSoTimeout((int) Math.max(1, (deadline - System.nanoTime()) / 1_000_000));
      s.startHandshake();
      return track(new Connection(channel, s));
    } catch (IOException e) {
      closeQuietly(socket);
      throw e;
    }
  }

  private Connection track(Connection c) throws IOException {
    open.add(c);
    if (closed) {
      c.close();
      throw new IOException("the client is closed");
    }
    return c;
  }

  private static void closeQuietly(Closeable c) {
    try {
      c.close();
    } catch (IOException e) {
      // closing anyway
    }
  }

  // ---------------------------------------------------------------------------------------------
  // One connection

  private record Head(int status, Map<String, String> headers, boolean keepAlive) {}

  private final class Connection implements Closeable {
    private final SocketChannel channel;
    private final Socket socket;
    private final InputStream raw;
    private final OutputStream out;
    // Our own buffer rather than a BufferedInputStream: the head is scanned for line ends in place.
    private final byte[] buf = new byte[16 * 1024];
    private final ByteBuffer probe = ByteBuffer.allocate(1);
    private int pos;
    private int lim;

    /** The current exchange's deadline ({@link System#nanoTime}); 0 for none (a stream). */
    private long deadline;

    long idleSince;

    /** Whether any byte of the current answer arrived. */
    boolean answered;

    /** Whether the last body was read to its end, so the next answer starts where it should. */
    boolean bodyComplete;

    /**
     * @param socket the channel's socket, or a TLS socket layered on it
     */
    Connection(SocketChannel channel, Socket socket) throws IOException {
      this.channel = channel;
      this.socket = socket;
      this.raw = socket.getInputStream();
      this.out = new BufferedOutputStream(socket.getOutputStream(), 16 * 1024);
    }

    void deadline(long nanos) {
      deadline = nanos;
    }

    boolean drained() {
      return pos == lim;
    }

    /**
     * Whether an idle connection can carry a request: the server has not closed it and sent nothing
     * unasked (under TLS that may be an alert; its bytes are read here, so such a connection is
     * dropped either way).
     */
    boolean open() {
      try {
        channel.configureBlocking(false);
        try {
          return channel.read(probe.clear()) == 0;
        } finally {
          channel.configureBlocking(true);
        }
      } catch (IOException e) {
        return false;
      }
    }

    void write(byte[] head, byte[] body) throws IOException {
      out.write(head);
      out.write(body);
      out.flush();
    }

    Head readHead() throws IOException {
      while (true) {
        String status = line(true);
        if (!status.startsWith("HTTP/1.") || status.length() < 12 || status.charAt(8) != ' ') {
          throw new IOException(
              "not an HTTP/1.1 answer from " + hostHeader + ": " + shorten(status));
        }
        int code;
        try {
          code = Integer.parseInt(status.substring(9, 12));
        } catch (NumberFormatException e) {
          throw new IOException("not an HTTP status from " + hostHeader + ": " + shorten(status));
        }
        Map<String, String> headers = new HashMap<>();
        for (int n = 0; ; n++) {
          String h = line(false);
          if (h.isEmpty()) {
            break;
          }
          if (n == MAX_HEADERS) {
            throw new IOException("more than " + MAX_HEADERS + " headers from " + hostHeader);
          }
          int colon = h.indexOf(':');
          if (colon <= 0) {
            throw new IOException("a malformed header line from " + hostHeader + ": " + shorten(h));
          }
          String name = h.substring(0, colon).trim().toLowerCase(Locale.ROOT);
          String value = h.substring(colon + 1).trim();
          String before = headers.putIfAbsent(name, value);
          if (before != null && name.equals("content-length") && !before.equals(value)) {
            throw new IOException("conflicting Content-Length headers from " + hostHeader);
          }
        }
        if (code / 100 == 1) {
          continue; // an interim answer (100 Continue): the real one follows
        }
        String connection = headers.getOrDefault("connection", "").toLowerCase(Locale.ROOT);
        boolean keepAlive =
            status.startsWith("HTTP/1.0")
                ? connection.contains("keep-alive")
                : !connection.contains("close");
        return new Head(code, headers, keepAlive);
      }
    }

    /** The body as its framing gives it; {@link #bodyComplete} once it ended where it should. */
    InputStream body(Head head, String method) throws IOException {
      bodyComplete = false;
      if ("HEAD".equals(method) || head.status == 204 || head.status == 304) {
        bodyComplete = true;
        return InputStream.nullInputStream();
      }
      String te = head.headers.get("transfer-encoding");
      if (te != null) {
        // Any other coding than chunked last: the body ends with the connection.
        return te.toLowerCase(Locale.ROOT).endsWith("chunked") ? new Chunked(this) : new Rest(this);
      }
      String cl = head.headers.get("content-length");
      if (cl == null) {
        return new Rest(this);
      }
      long n;
      try {
        n = Long.parseLong(cl);
      } catch (NumberFormatException e) {
        n = -1;
      }
      if (n < 0) {
        throw new IOException("an invalid Content-Length from " + hostHeader + ": " + shorten(cl));
      }
      return new Fixed(this, n);
    }

    byte[] readBody(Head head, String method) throws IOException {
      InputStream body = body(head, method);
      return body instanceof Fixed f ? f.readAll() : body.readAllBytes();
    }

    EOFException endedEarly(long got, long of) {
      return new EOFException(
          "the answer from " + hostHeader + " ended after " + got + " of " + of + " bytes");
    }

    /** Refills the buffer; -1 at the end of the stream. */
    private int fill() throws IOException {
      int n = readRaw(buf, 0, buf.length);
      if (n > 0) {
        pos = 0;
        lim = n;
      }
      return n;
    }

    private int readRaw(byte[] b, int off, int len) throws IOException {
      if (deadline == 0) {
        socket.setSoTimeout(0);
      } else {
        long left = (deadline - System.nanoTime()) / 1_000_000;
        if (left <= 0) {
          throw new SocketTimeoutException("no answer before the call's deadline");
        }
        socket.setSoTimeout((int) Math.min(Integer.MAX_VALUE, left));
      }
      int n;
      try {
        n = raw.read(b, off, len);
      } catch (SocketTimeoutException e) {
        throw new SocketTimeoutException("no answer before the call's deadline");
      }
      if (n > 0) {
        answered = true;
      }
      return n;
    }

    int read(byte[] b, int off, int len) throws IOException {
      if (len == 0) {
        return 0;
      }
      if (pos == lim) {
        if (len >= buf.length) {
          return readRaw(b, off, len); // large reads skip the buffer
        }
        if (fill() < 0) {
          return -1;
        }
      }
      int n = Math.min(len, lim - pos);
      System.arraycopy(buf, pos, b, off, n);
      pos += n;
      return n;
    }

    /** A CRLF- (or LF-) terminated line, in ISO-8859-1 as HTTP's head is. */
    String line(boolean first) throws IOException {
      ByteArrayOutputStream spill = null;
      while (true) {
        if (pos == lim && fill() < 0) {
          if (first && spill == null) {
            throw new EOFException("the server closed the connection without answering");
          }
          throw new EOFException("the answer from " + hostHeader + " ended inside its head");
        }
        int start = pos;
        while (pos < lim && buf[pos] != '\n') {
          pos++;
        }
        if (pos < lim) {
          int end = pos++;
          if (spill == null) {
            if (end > start && buf[end - 1] == '\r') {
              end--;
            }
            return new String(buf, start, end - start, StandardCharsets.ISO_8859_1);
          }
          spill.write(buf, start, end - start);
          byte[] all = spill.toByteArray();
          int n = all.length > 0 && all[all.length - 1] == '\r' ? all.length - 1 : all.length;
          return new String(all, 0, n, StandardCharsets.ISO_8859_1);
        }
        if (spill == null) {
          spill = new ByteArrayOutputStream(256);
        }
        spill.write(buf, start, pos - start);
        if (spill.size() > MAX_LINE) {
          throw new IOException("a header line of over " + MAX_LINE + " bytes from " + hostHeader);
        }
      }
    }

    @Override
    public void close() {
      open.remove(this);
      closeQuietly(socket);
    }
  }

  private static String shorten(String s) {
    return s.length() > 80 ? s.substring(0, 80) + "…" : s;
  }

  /** A body read from its connection; closing it closes the connection. */
  private abstract static class BodyStream extends InputStream {
    final Connection c;

    BodyStream(Connection c) {
      this.c = c;
    }

    @Override
    public int read() throws IOException {
      byte[] one = new byte[1];
      int n = read(one, 0, 1);
      return n < 0 ? -1 : one[0] & 0xff;
    }

    @Override
    public void close() {
      c.close();
    }
  }

  /** A body of Content-Length bytes. */
  private static final class Fixed extends BodyStream {
    private final long length;
    private long left;

    Fixed(Connection c, long length) {
      super(c);
      this.length = length;
      this.left = length;
      c.bodyComplete = length == 0;
    }

    @Override
    public int read(byte[] b, int off, int len) throws IOException {
      if (left == 0) {
        return -1;
      }
      int n = c.read(b, off, (int) Math.min(len, left));
      if (n < 0) {
        throw c.endedEarly(length - left, length);
      }
      left -= n;
      if (left == 0) {
        c.bodyComplete = true;
      }
      return n;
    }

    /** The whole body into one array of its length (a stream's chunks would be copied again). */
    byte[] readAll() throws IOException {
      if (left > Integer.MAX_VALUE - 16) {
        return readAllBytes();
      }
      byte[] b = new byte[(int) left];
      for (int off = 0; off < b.length; ) {
        off += read(b, off, b.length - off);
      }
      return b;
    }
  }

  /** A chunked body (RFC 9112, section 7.1); trailers are read and dropped. */
  private static final class Chunked extends BodyStream {
    private long left;
    private boolean started;
    private boolean done;

    Chunked(Connection c) {
      super(c);
    }

    @Override
    public int read(byte[] b, int off, int len) throws IOException {
      if (done) {
        return -1;
      }
      if (left == 0) {
        if (started && !c.line(false).isEmpty()) {
          throw new IOException("a chunk of the answer did not end where its size said");
        }
        started = true;
        String size = c.line(false);
        int semi = size.indexOf(';');
        try {
          left = Long.parseLong((semi < 0 ? size : size.substring(0, semi)).trim(), 16);
        } catch (NumberFormatException e) {
          left = -1;
        }
        if (left < 0) {
          throw new IOException("an invalid chunk size in the answer: " + shorten(size));
        }
        if (left == 0) {
          while (!c.line(false).isEmpty()) {
            // trailers: none that matter here
          }
          done = true;
          c.bodyComplete = true;
          return -1;
        }
      }
      int n = c.read(b, off, (int) Math.min(len, left));
      if (n < 0) {
        throw new EOFException("the answer ended inside a chunk");
      }
      left -= n;
      return n;
    }
  }

  /** A body that ends when the server closes the connection. */
  private static final class Rest extends BodyStream {
    Rest(Connection c) {
      super(c);
    }

    @Override
    public int read(byte[] b, int off, int len) throws IOException {
      return c.read(b, off, len);
    }
  }
}
