package io.dra4j.kube.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.ConnectException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The HTTP/1.1 transport against a scripted server on a real socket: each connection it accepts
 * answers the requests it reads with the next scripted answers, byte for byte, so framing,
 * keep-alive, stale connections and deadlines are seen exactly as a server would send them.
 */
class Http1TransportTest {
  private static final long SECOND = TimeUnit.SECONDS.toNanos(1);

  private final List<AutoCloseable> closing = new ArrayList<>();

  @AfterEach
  void close() throws Exception {
    Collections.reverse(closing);
    for (AutoCloseable c : closing) {
      c.close();
    }
  }

  /** A server whose connections each answer requests with the answers a script gives them. */
  private final class Scripted implements AutoCloseable {
    final ServerSocket server;
    final AtomicInteger connections = new AtomicInteger();
    final CountDownLatch aConnectionClosed = new CountDownLatch(1);
    final BlockingQueue<String> requests = new LinkedBlockingQueue<>();
    final Script script;

    Scripted(Script script) throws IOException {
      this.script = script;
      this.server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
      Thread t = new Thread(this::accept, "scripted-server");
      t.setDaemon(true);
      t.start();
      closing.add(this);
    }

    URI uri() {
      return URI.create("http://127.0.0.1:" + server.getLocalPort());
    }

    private void accept() {
      while (!server.isClosed()) {
        try {
          Socket s = server.accept();
          int n = connections.incrementAndGet();
          Thread t = new Thread(() -> serve(s, n), "scripted-connection-" + n);
          t.setDaemon(true);
          t.start();
        } catch (IOException e) {
          return;
        }
      }
    }

    private void serve(Socket s, int connection) {
      try (s) {
        InputStream in = s.getInputStream();
        OutputStream out = s.getOutputStream();
        for (int request = 1; ; request++) {
          String head = readHead(in);
          if (head == null) {
            return;
          }
          int length = contentLength(head);
          String body = new String(in.readNBytes(length), StandardCharsets.UTF_8);
          requests.add(head + body);
          if (!script.answer(connection, request, out)) {
            return; // the script closes the connection
          }
          out.flush();
        }
      } catch (IOException e) {
        // the client went away
      } finally {
        aConnectionClosed.countDown();
      }
    }

    @Override
    public void close() throws IOException {
      server.close();
    }
  }

  @FunctionalInterface
  private interface Script {
    /** Writes the answer to request {@code request} of connection {@code connection}. */
    boolean answer(int connection, int request, OutputStream out) throws IOException;
  }

  private static String readHead(InputStream in) throws IOException {
    ByteArrayOutputStream b = new ByteArrayOutputStream();
    int c;
    while ((c = in.read()) >= 0) {
      b.write(c);
      String s = b.toString(StandardCharsets.ISO_8859_1);
      if (s.endsWith("\r\n\r\n")) {
        return s;
      }
    }
    return null;
  }

  private static int contentLength(String head) {
    for (String line : head.split("\r\n")) {
      if (line.toLowerCase().startsWith("content-length:")) {
        return Integer.parseInt(line.substring(15).trim());
      }
    }
    return 0;
  }

  private static void write(OutputStream out, String s) throws IOException {
    out.write(s.getBytes(StandardCharsets.UTF_8));
  }

  private static String ok(String body) {
    return "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: "
        + body.getBytes(StandardCharsets.UTF_8).length
        + "\r\n\r\n"
        + body;
  }

  private Http1Transport transport(URI uri) {
    Http1Transport t = new Http1Transport(uri, Optional.empty(), Duration.ofSeconds(5));
    closing.add(t);
    return t;
  }

  private static Http1Transport.Request get(String target) {
    return new Http1Transport.Request(
        "GET", target, List.of("Accept", "application/json"), new byte[0], true);
  }

  private static long in(long nanos) {
    return System.nanoTime() + nanos;
  }

  private static String body(Http1Transport.Response r) {
    return new String(r.body(), StandardCharsets.UTF_8);
  }

  @Test
  void keepsTheConnectionAliveAcrossRequests() throws Exception {
    Scripted s =
        new Scripted(
            (conn, req, out) -> {
              write(out, ok("{\"n\":" + req + "}"));
              return true;
            });
    Http1Transport t = transport(URI.create(s.uri() + "/base/"));
    for (int i = 1; i <= 3; i++) {
      Http1Transport.Response r = t.exchange(get("/api/v1/x?y=1"), in(5 * SECOND));
      assertThat(r.status()).isEqualTo(200);
      assertThat(body(r)).isEqualTo("{\"n\":" + i + "}");
      assertThat(r.header("content-type")).contains("application/json");
    }
    assertThat(s.connections).hasValue(1);
    String first = s.requests.take();
    assertThat(first)
        .startsWith("GET /base/api/v1/x?y=1 HTTP/1.1\r\n")
        .contains("\r\nHost: 127.0.0.1:" + s.server.getLocalPort() + "\r\n")
        .contains("\r\nAccept: application/json\r\n")
        .doesNotContain("Content-Length");
  }

  @Test
  void sendsTheBodyWithItsLength() throws Exception {
    Scripted s =
        new Scripted(
            (conn, req, out) -> {
              write(out, "HTTP/1.1 201 Created\r\nContent-Length: 2\r\n\r\n{}");
              return true;
            });
    Http1Transport t = transport(s.uri());
    byte[] payload = "{\"a\":\"ü\"}".getBytes(StandardCharsets.UTF_8);
    Http1Transport.Response r =
        t.exchange(
            new Http1Transport.Request(
                "PATCH", "/o", List.of("Content-Type", "application/json"), payload, true),
            in(5 * SECOND));
    assertThat(r.status()).isEqualTo(201);
    assertThat(s.requests.take())
        .contains("Content-Length: " + payload.length + "\r\n")
        .endsWith("\r\n\r\n{\"a\":\"ü\"}");
  }

  @Test
  void readsChunkedAnswersWithExtensionsAndTrailers() throws Exception {
    Scripted s =
        new Scripted(
            (conn, req, out) -> {
              write(
                  out,
                  "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"
                      + "4;ext=1\r\n{\"a\"\r\n"
                      + "A\r\n:\"0123456\"\r\n"
                      + "1\r\n}\r\n"
                      + "0\r\nX-Trailer: t\r\n\r\n");
              return true;
            });
    Http1Transport t = transport(s.uri());
    assertThat(body(t.exchange(get("/a"), in(5 * SECOND)))).isEqualTo("{\"a\":\"0123456\"}");
    // The chunked body ended where it should: the connection carries the next exchange.
    assertThat(body(t.exchange(get("/b"), in(5 * SECOND)))).isEqualTo("{\"a\":\"0123456\"}");
    assertThat(s.connections).hasValue(1);
  }

  @Test
  void aConnectionTheServerClosesIsNotReused() throws Exception {
    Scripted s =
        new Scripted(
            (conn, req, out) -> {
              write(
                  out, "HTTP/1.1 404 Not Found\r\nConnection: close\r\nContent-Length: 0\r\n\r\n");
              return false;
            });
    Http1Transport t = transport(s.uri());
    assertThat(t.exchange(get("/a"), in(5 * SECOND)).status()).isEqualTo(404);
    assertThat(t.exchange(get("/a"), in(5 * SECOND)).status()).isEqualTo(404);
    assertThat(s.connections).hasValue(2);
  }

  @Test
  void aBodyUntilCloseEndsWithTheConnection() throws Exception {
    Scripted s =
        new Scripted(
            (conn, req, out) -> {
              write(out, "HTTP/1.1 200 OK\r\n\r\nall of it");
              return false;
            });
    Http1Transport t = transport(s.uri());
    assertThat(body(t.exchange(get("/a"), in(5 * SECOND)))).isEqualTo("all of it");
    assertThat(body(t.exchange(get("/a"), in(5 * SECOND)))).isEqualTo("all of it");
    assertThat(s.connections).hasValue(2);
  }

  @Test
  void skipsInterimAnswers() throws Exception {
    Scripted s =
        new Scripted(
            (conn, req, out) -> {
              write(out, "HTTP/1.1 100 Continue\r\n\r\n" + ok("{}"));
              return true;
            });
    assertThat(transport(s.uri()).exchange(get("/a"), in(5 * SECOND)).status()).isEqualTo(200);
  }

  @Test
  void aConnectionTheServerClosedWhileIdleIsNotReused() throws Exception {
    Scripted s =
        new Scripted(
            (conn, req, out) -> {
              write(out, ok("{}"));
              return false; // answers once, then closes
            });
    Http1Transport t = transport(s.uri());
    assertThat(t.exchange(get("/a"), in(5 * SECOND)).status()).isEqualTo(200);
    // The server's close arrives while the connection is pooled.
    assertThat(s.aConnectionClosed.await(30, TimeUnit.SECONDS)).isTrue();
    assertThat(t.exchange(get("/a"), in(5 * SECOND)).status()).isEqualTo(200);
    assertThat(s.connections).hasValue(2);
  }

  @Test
  void aCloseThatCrossesTheRequestIsReportedAndThePoolEmptied() throws Exception {
    // The first connection answers its first request and closes on the second without a word.
    Scripted s =
        new Scripted(
            (conn, req, out) -> {
              if (conn == 1 && req == 2) {
                return false;
              }
              write(out, ok("{}"));
              return true;
            });
    Http1Transport t = transport(s.uri());
    assertThat(t.exchange(get("/a"), in(5 * SECOND)).status()).isEqualTo(200);
    assertThatThrownBy(() -> t.exchange(get("/a"), in(5 * SECOND)))
        .isInstanceOf(Http1Transport.StaleConnectionException.class)
        .hasMessage(
            "the server closed a kept-alive connection: the server closed the connection without"
                + " answering");
    assertThat(t.exchange(get("/a"), in(5 * SECOND)).status()).isEqualTo(200);
    assertThat(s.connections).hasValue(2);
  }

  @Test
  void aRequestNeverToBeRepeatedTakesOnlyARecentConnection() throws Exception {
    Scripted s =
        new Scripted(
            (conn, req, out) -> {
              write(out, ok("{}"));
              return true;
            });
    Http1Transport t = transport(s.uri());
    Http1Transport.Request create =
        new Http1Transport.Request("POST", "/o", List.of(), "{}".getBytes(), false);
    t.exchange(get("/a"), in(5 * SECOND));
    t.exchange(create, in(5 * SECOND)); // the connection answered a moment ago
    assertThat(s.connections).hasValue(1);
    Thread.sleep(Http1Transport.RECENT.toMillis() + 100); // the point: the connection ages
    t.exchange(create, in(5 * SECOND));
    assertThat(s.connections).hasValue(2);
    t.exchange(get("/a"), in(5 * SECOND)); // the pool holds both; a GET takes any
    assertThat(s.connections).hasValue(2);
  }

  @Test
  void anAnswerLateForTheDeadlineTimesOut() throws Exception {
    Scripted s =
        new Scripted(
            (conn, req, out) -> {
              try {
                Thread.sleep(5_000); // the point: an answer later than the call's deadline
              } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
              }
              return false;
            });
    Http1Transport t = transport(s.uri());
    long start = System.nanoTime();
    assertThatThrownBy(() -> t.exchange(get("/a"), in(SECOND / 5)))
        .isInstanceOf(SocketTimeoutException.class)
        .hasMessage("no answer before the call's deadline");
    assertThat(System.nanoTime() - start).isLessThan(3 * SECOND);
  }

  @Test
  void aRefusedConnectionSaysNothingWasSent() throws Exception {
    int port;
    try (ServerSocket free = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      port = free.getLocalPort();
    }
    Http1Transport t = transport(URI.create("http://127.0.0.1:" + port));
    assertThatThrownBy(() -> t.exchange(get("/a"), in(5 * SECOND)))
        .isInstanceOf(ConnectException.class)
        .hasMessageContaining("127.0.0.1:" + port);
  }

  @Test
  void aTruncatedBodyIsAnError() throws Exception {
    Scripted s =
        new Scripted(
            (conn, req, out) -> {
              write(out, "HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\n12345");
              return false;
            });
    assertThatThrownBy(() -> transport(s.uri()).exchange(get("/a"), in(5 * SECOND)))
        .isInstanceOf(IOException.class)
        .hasMessageContaining("ended after 5 of 10 bytes");
  }

  @Test
  void refusesWhatIsNotHttp() throws Exception {
    Scripted s =
        new Scripted(
            (conn, req, out) -> {
              write(out, "SSH-2.0-OpenSSH\r\n\r\n");
              return false;
            });
    assertThatThrownBy(() -> transport(s.uri()).exchange(get("/a"), in(5 * SECOND)))
        .hasMessageStartingWith("not an HTTP/1.1 answer from 127.0.0.1:")
        .hasMessageEndingWith(": SSH-2.0-OpenSSH");
  }

  @Test
  void refusesAHeaderValueWithALineBreak() {
    Http1Transport t = transport(URI.create("http://127.0.0.1:1"));
    assertThatThrownBy(
            () ->
                t.exchange(
                    new Http1Transport.Request(
                        "GET",
                        "/",
                        List.of("Authorization", "Bearer a\r\nX: y"),
                        new byte[0],
                        true),
                    in(SECOND)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("the Authorization header's value contains a line break; it cannot be sent");
  }

  @Test
  void streamsABodyUntilClosed() throws Exception {
    BlockingQueue<String> lines = new LinkedBlockingQueue<>();
    Scripted s =
        new Scripted(
            (conn, req, out) -> {
              write(out, "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n");
              for (int i = 0; i < 3; i++) {
                String line = "{\"event\":" + i + "}\n";
                write(out, Integer.toHexString(line.length()) + "\r\n" + line + "\r\n");
                out.flush();
              }
              try {
                Thread.sleep(10_000); // a watch that stays open
              } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
              }
              return false;
            });
    Http1Transport t = transport(s.uri());
    Http1Transport.Response r = t.open(get("/watch"), in(5 * SECOND));
    assertThat(r.status()).isEqualTo(200);
    Thread reader =
        new Thread(
            () -> {
              try (var in =
                  new java.io.BufferedReader(
                      new java.io.InputStreamReader(r.stream(), StandardCharsets.UTF_8))) {
                String line;
                while ((line = in.readLine()) != null) {
                  lines.add(line);
                }
                lines.add("end");
              } catch (IOException e) {
                lines.add("closed");
              }
            });
    reader.start();
    assertThat(lines.poll(5, TimeUnit.SECONDS)).isEqualTo("{\"event\":0}");
    assertThat(lines.poll(5, TimeUnit.SECONDS)).isEqualTo("{\"event\":1}");
    assertThat(lines.poll(5, TimeUnit.SECONDS)).isEqualTo("{\"event\":2}");
    r.stream().close();
    assertThat(lines.poll(5, TimeUnit.SECONDS)).isEqualTo("closed");
    reader.join(5_000);
    assertThat(reader.isAlive()).isFalse();
  }

  @Test
  void aStreamedErrorIsReadWhole() throws Exception {
    Scripted s =
        new Scripted(
            (conn, req, out) -> {
              write(
                  out,
                  "HTTP/1.1 410 Gone\r\nContent-Length: 17\r\nRetry-After: 3\r\n\r\n{\"reason\":\"Gone\"}");
              return true;
            });
    Http1Transport.Response r = transport(s.uri()).open(get("/watch"), in(5 * SECOND));
    assertThat(r.status()).isEqualTo(410);
    assertThat(body(r)).isEqualTo("{\"reason\":\"Gone\"}");
    assertThat(r.header("retry-after")).contains("3");
    assertThat(Map.copyOf(r.headers())).containsKey("content-length");
  }
}
