package io.dra4j.kube;

import com.fasterxml.jackson.databind.JsonNode;
import io.dra4j.kube.internal.Backoff;
import io.dra4j.kube.internal.Failures;
import io.dra4j.kube.internal.Http1Transport;
import io.dra4j.kube.internal.StatusReasons;
import io.dra4j.kube.internal.TokenBucket;
import java.io.IOException;
import java.io.InputStream;
import java.net.ConnectException;
import java.net.SocketTimeoutException;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One call of {@link HttpKubeClient} over {@link Http1Transport}: its deadline, the client-side
 * rate limit, the headers, the retries the client's class comment lists, and the API server's
 * Status turned into a {@link KubeException}.
 */
final class HttpCalls {
  // The client's logger: log settings name the public class, not its parts.
  private static final Logger LOG = LoggerFactory.getLogger(HttpKubeClient.class);

  static final String JSON = "application/json";
  private static final byte[] NO_BODY = new byte[0];

  private final KubeConfig config;
  private final Http1Transport http;
  private final TokenBucket limiter;
  private final RequestObserver observer;
  private final Duration callTimeout;
  private final int maxRetries;
  private final Backoff.Policy retryBackoff;
  private final String userAgent;
  private final AtomicLong retries = new AtomicLong();

  HttpCalls(HttpKubeClient.Builder b) {
    this.config = b.config;
    this.http = new Http1Transport(config.server(), config.sslContext(), b.connectTimeout);
    this.limiter = new TokenBucket(b.qps, b.burst);
    this.observer = b.observer;
    this.callTimeout = b.callTimeout;
    this.maxRetries = b.maxRetries;
    this.retryBackoff = Backoff.Policy.upTo(b.retryBase, b.retryMax);
    this.userAgent = b.userAgent;
  }

  /** How many calls had to wait for the client-side rate limit. */
  long throttled() {
    return limiter.throttled();
  }

  /** How many attempts were repeated (429, 5xx, connection errors). */
  long retried() {
    return retries.get();
  }

  void close() {
    http.close();
  }

  /** What a call does, which decides whether repeating it after an ambiguous failure is safe. */
  enum Verb {
    GET("GET", true),
    LIST("GET", true),
    WATCH("GET", true),
    CREATE("POST", false),
    UPDATE("PUT", true),
    APPLY("PATCH", true),
    DELETE("DELETE", true);

    final String method;
    final boolean repeatable;
    final String label = name().toLowerCase(Locale.ROOT);

    Verb(String method, boolean repeatable) {
      this.method = method;
      this.repeatable = repeatable;
    }
  }

  /** A call with a JSON answer: its body. */
  byte[] call(
      Verb verb,
      String resource,
      String path,
      Map<String, String> query,
      byte[] body,
      String contentType)
      throws KubeException {
    return send(verb, resource, path, query, body, contentType, false).body();
  }

  /** A call whose answer is read as it comes (a watch): its open body. */
  InputStream open(Verb verb, String resource, String path, Map<String, String> query)
      throws KubeException {
    return send(verb, resource, path, query, null, null, true).stream();
  }

  /**
   * @param resource the metrics label of the resource ({@link RequestObserver#attempted})
   */
  private Http1Transport.Response send(
      Verb verb,
      String resource,
      String path,
      Map<String, String> query,
      byte[] body,
      String contentType,
      boolean stream)
      throws KubeException {
    long deadline = System.nanoTime() + callTimeout.toNanos();
    String target = target(path, query);
    String what = verb.method + " " + path;
    Backoff backoff = new Backoff(retryBackoff);
    boolean tokenRefreshed = false;
    for (int attempt = 0; ; attempt++) {
      try {
        long waited = limiter.acquire(deadline);
        if (waited < 0) {
          throw new KubeException(
              0,
              "ClientRateLimited",
              what + ": the client-side rate limit would delay the call past its deadline");
        }
        if (waited > 0) {
          observer.rateLimited(verb.label, waited);
        }
        if (deadline - System.nanoTime() <= 0) {
          throw timeout(what, null);
        }
        List<String> headers = new ArrayList<>(8);
        headers.add("Accept");
        headers.add(JSON);
        headers.add("User-Agent");
        headers.add(userAgent);
        Optional<String> token = config.tokens().current();
        if (token.isPresent()) {
          headers.add("Authorization");
          headers.add("Bearer " + token.get());
        }
        if (contentType != null) {
          headers.add("Content-Type");
          headers.add(contentType);
        }
        Http1Transport.Request request =
            new Http1Transport.Request(
                verb.method, target, headers, body == null ? NO_BODY : body, verb.repeatable);
        Http1Transport.Response response;
        long sent = System.nanoTime();
        try {
          response = stream ? http.open(request, deadline) : http.exchange(request, deadline);
        } catch (IOException e) {
          observer.attempted(verb.label, resource, 0, System.nanoTime() - sent);
          throw e;
        }
        int status = response.status();
        observer.attempted(verb.label, resource, status, System.nanoTime() - sent);
        if (status >= 200 && status < 300) {
          return response;
        }
        KubeException error = error(what, status, response.body());
        if (status == 401 && !tokenRefreshed && config.tokens().refresh()) {
          tokenRefreshed = true;
          LOG.info("{}: 401 Unauthorized; retrying with the re-read token", what);
          attempt--;
          continue;
        }
        Optional<Duration> retryAfter = retryAfter(response);
        boolean retry =
            status == 429
                || (status >= 500 && retryAfter.isPresent())
                || (status >= 500 && verb.repeatable);
        if (!retry || attempt >= maxRetries) {
          throw error;
        }
        Duration delay = retryAfter.orElseGet(backoff::next);
        if (retryAfter.isPresent() && retryAfter.get().isZero()) {
          delay = backoff.next();
        }
        pause(what, delay, deadline, error);
      } catch (ConnectException e) {
        // Never sent: safe for every verb. But a LIST or WATCH belongs to an informer, which
        // repeats it on its own backoff as client-go's reflector does (client-go never retries a
        // refused connection inside a call: apimachinery v0.37.2 pkg/util/net/http.go:79-103,
        // client-go rest/request.go:776-783, 1066-1077); retries here would multiply its attempts.
        KubeException error =
            new KubeException(
                0, "ConnectionFailed", what + ": cannot connect: " + Failures.describe(e), e);
        if (attempt >= maxRetries || verb == Verb.LIST || verb == Verb.WATCH) {
          throw error;
        }
        pause(what, backoff.next(), deadline, error);
      } catch (SocketTimeoutException e) {
        if (deadline - System.nanoTime() <= 0 || !verb.repeatable || attempt >= maxRetries) {
          throw timeout(what, e);
        }
        pause(what, backoff.next(), deadline, timeout(what, e));
      } catch (IOException e) {
        KubeException error =
            new KubeException(
                0, "ConnectionFailed", what + ": connection failed: " + Failures.describe(e), e);
        if (!verb.repeatable || attempt >= maxRetries) {
          throw error;
        }
        if (e instanceof Http1Transport.StaleConnectionException) {
          // At once, without a backoff: the server closed an idle connection, it is not in
          // trouble. The next attempt takes a new connection (the transport emptied its pool).
          retries.incrementAndGet();
        } else {
          pause(what, backoff.next(), deadline, error);
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new KubeException(0, "Interrupted", what + ": interrupted", e);
      }
    }
  }

  private void pause(String what, Duration delay, long deadline, KubeException cause)
      throws KubeException {
    if (System.nanoTime() + delay.toNanos() - deadline > 0) {
      throw cause;
    }
    retries.incrementAndGet();
    LOG.debug("{}: {}; retrying in {} ms", what, cause.getMessage(), delay.toMillis());
    try {
      Thread.sleep(delay.toMillis(), (int) (delay.toNanos() % 1_000_000));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new KubeException(0, "Interrupted", what + ": interrupted", e);
    }
  }

  private static KubeException timeout(String what, Throwable cause) {
    return new KubeException(
        0, "Timeout", what + ": no response before the call's deadline", cause);
  }

  private static Optional<Duration> retryAfter(Http1Transport.Response response) {
    Optional<String> h = response.header("retry-after");
    if (h.isEmpty()) {
      return Optional.empty();
    }
    try {
      return Optional.of(Duration.ofSeconds(Math.max(0, Long.parseLong(h.get().trim()))));
    } catch (NumberFormatException e) {
      return Optional.of(Duration.ofSeconds(1)); // an HTTP date: rare; wait a little
    }
  }

  /** The API server's Status (reason, message) turned into an exception. */
  static KubeException error(String what, int status, byte[] body) {
    String reason = "";
    String message = "";
    try {
      JsonNode s = KubeJson.mapper().readTree(body);
      if (s != null && s.isObject()) {
        reason = s.path("reason").asText("");
        message = s.path("message").asText("");
      }
    } catch (IOException e) {
      // not JSON: use the text
    }
    if (message.isEmpty() && body.length > 0) {
      message = new String(body, 0, Math.min(body.length, 512), StandardCharsets.UTF_8).trim();
    }
    if (reason.isEmpty()) {
      reason = StatusReasons.forCode(status);
    }
    return new KubeException(status, reason, what + ": " + status + " " + reason + ": " + message);
  }

  /** The request target below the server's base URL: the path and its encoded query. */
  private static String target(String path, Map<String, String> query) {
    if (query.isEmpty()) {
      return path;
    }
    StringBuilder sb = new StringBuilder(path);
    char sep = '?';
    for (Map.Entry<String, String> e : query.entrySet()) {
      sb.append(sep)
          .append(e.getKey())
          .append('=')
          .append(URLEncoder.encode(e.getValue(), StandardCharsets.UTF_8).replace("+", "%20"));
      sep = '&';
    }
    return sb.toString();
  }
}
