package io.dra4j.benchmarks.fleet;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The API server's own count of what it served: {@code apiserver_request_total} summed over codes
 * by verb and resource, and the open watches ({@code apiserver_longrunning_requests}, verb WATCH)
 * by resource, sampled from its {@code /metrics} every interval on a thread of its own. The
 * counters start again from zero when the server restarts; each sample's totals carry on across
 * that (a counter that went down counts from zero again), so the difference of two samples is what
 * was served between them.
 */
final class ServerMetrics implements AutoCloseable {
  private static final Pattern LABEL = Pattern.compile("(\\w+)=\"([^\"]*)\"");

  /** One scrape: cumulative requests by {@code "VERB resource"}, open watches by resource. */
  record Sample(long nanos, boolean ok, Map<String, Double> requests, Map<String, Double> watches) {
    double total() {
      return requests.values().stream().mapToDouble(Double::doubleValue).sum();
    }

    /** Requests between {@code earlier} and this sample, by key. */
    Map<String, Double> since(Sample earlier) {
      Map<String, Double> out = new TreeMap<>();
      requests.forEach(
          (k, v) -> {
            double d = v - earlier.requests.getOrDefault(k, 0.0);
            if (d > 0.5) {
              out.put(k, d);
            }
          });
      return out;
    }
  }

  private final List<String> curl;
  private final long intervalMillis;
  private final List<Sample> samples = new ArrayList<>(); // guarded by this
  private final Map<String, Double> lastRaw = new HashMap<>();
  private final Map<String, Double> carried = new HashMap<>(); // cumulative totals
  private final Thread thread;
  private volatile boolean closed;

  ServerMetrics(Path clusterDir, int port, long intervalMillis) {
    Path pki = clusterDir.resolve("pki");
    this.curl =
        List.of(
            "curl",
            "-sS",
            "--max-time",
            "5",
            "--cacert",
            pki.resolve("ca.crt").toString(),
            "--cert",
            pki.resolve("admin.crt").toString(),
            "--key",
            pki.resolve("admin.key").toString(),
            "https://127.0.0.1:" + port + "/metrics");
    this.intervalMillis = intervalMillis;
    this.thread = new Thread(this::loop, "fleet-metrics");
    thread.setDaemon(true);
  }

  ServerMetrics start() {
    sampleNow();
    thread.start();
    return this;
  }

  private void loop() {
    long next = System.nanoTime();
    while (!closed) {
      next += intervalMillis * 1_000_000L;
      long wait = next - System.nanoTime();
      if (wait > 0) {
        try {
          TimeUnit.NANOSECONDS.sleep(wait);
        } catch (InterruptedException e) {
          return;
        }
      }
      sampleNow();
    }
  }

  /** Scrapes once and records the sample (a failed scrape is recorded as not ok). */
  synchronized Sample sampleNow() {
    long t = System.nanoTime();
    Map<String, Double> raw = new HashMap<>();
    Map<String, Double> watches = new TreeMap<>();
    boolean ok = scrape(raw, watches);
    Sample s;
    if (ok) {
      for (Map.Entry<String, Double> e : raw.entrySet()) {
        double before = lastRaw.getOrDefault(e.getKey(), 0.0);
        // A counter that went down: the server restarted and counts from zero again.
        double delta = e.getValue() >= before ? e.getValue() - before : e.getValue();
        carried.merge(e.getKey(), delta, Double::sum);
      }
      // A series the restarted server has not served yet starts from zero when it comes back.
      lastRaw.keySet().retainAll(raw.keySet());
      lastRaw.putAll(raw);
      s = new Sample(t, true, new TreeMap<>(carried), watches);
    } else {
      Sample prev = samples.isEmpty() ? null : samples.get(samples.size() - 1);
      s = new Sample(t, false, prev == null ? Map.of() : prev.requests(), Map.of());
    }
    samples.add(s);
    return s;
  }

  private boolean scrape(Map<String, Double> requests, Map<String, Double> watches) {
    try {
      Process p = new ProcessBuilder(curl).redirectErrorStream(false).start();
      p.getErrorStream().close();
      try (BufferedReader r =
          new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))) {
        String line;
        while ((line = r.readLine()) != null) {
          if (line.startsWith("apiserver_request_total{")) {
            Map<String, String> l = labels(line);
            String resource = l.getOrDefault("resource", "");
            if (resource.isEmpty()) {
              continue; // /metrics, /readyz and the like: not API objects
            }
            String sub = l.getOrDefault("subresource", "");
            String key = l.get("verb") + " " + resource + (sub.isEmpty() ? "" : "/" + sub);
            requests.merge(key, value(line), Double::sum);
          } else if (line.startsWith("apiserver_longrunning_requests{")) {
            Map<String, String> l = labels(line);
            if ("WATCH".equals(l.get("verb"))) {
              watches.merge(l.getOrDefault("resource", ""), value(line), Double::sum);
            }
          }
        }
      }
      return p.waitFor(10, TimeUnit.SECONDS) && p.exitValue() == 0 && !requests.isEmpty();
    } catch (IOException e) {
      return false;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return false;
    }
  }

  private static Map<String, String> labels(String line) {
    Map<String, String> out = new HashMap<>();
    Matcher m = LABEL.matcher(line.substring(line.indexOf('{'), line.lastIndexOf('}')));
    while (m.find()) {
      out.put(m.group(1), m.group(2));
    }
    return out;
  }

  private static double value(String line) {
    return Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1));
  }

  synchronized List<Sample> samples() {
    return List.copyOf(samples);
  }

  /** The last good sample taken at or before {@code nanos}; the first sample if none. */
  synchronized Sample at(long nanos) {
    Sample best = samples.get(0);
    for (Sample s : samples) {
      if (s.nanos() <= nanos && s.ok()) {
        best = s;
      }
    }
    return best;
  }

  /** The first good sample taken at or after {@code nanos}, scraping now if there is none yet. */
  Sample after(long nanos) {
    synchronized (this) {
      for (Sample s : samples) {
        if (s.nanos() >= nanos && s.ok()) {
          return s;
        }
      }
    }
    return sampleNow();
  }

  @Override
  public void close() {
    closed = true;
    thread.interrupt();
  }
}
