package io.dra4j.runtime.testsupport;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * A child process whose output (stdout and stderr together) a test waits on line by line: a driver
 * in another JVM or language that says what it reached. Closing it kills the process.
 */
public final class ChildProcess implements AutoCloseable {
  private final Process process;
  private final LinkedBlockingQueue<String> lines = new LinkedBlockingQueue<>();
  private final List<String> seen = new ArrayList<>();

  private ChildProcess(Process process) {
    this.process = process;
    Thread reader =
        new Thread(
            () -> {
              try (BufferedReader r =
                  new BufferedReader(
                      new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
                for (String l; (l = r.readLine()) != null; ) {
                  lines.add(l);
                }
              } catch (IOException e) {
                // The process ended.
              }
            },
            "child-output");
    reader.setDaemon(true);
    reader.start();
  }

  /** Starts {@code command}, its stderr merged into its stdout. */
  public static ChildProcess start(List<String> command) {
    try {
      return new ChildProcess(new ProcessBuilder(command).redirectErrorStream(true).start());
    } catch (IOException e) {
      throw new UncheckedIOException("cannot start " + command, e);
    }
  }

  public Process process() {
    return process;
  }

  /**
   * Waits for the next line that starts with {@code prefix} and returns it.
   *
   * @throws AssertionError with everything the process printed when no such line comes in time
   */
  public String awaitLine(String prefix, Duration timeout) throws InterruptedException {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (System.nanoTime() < deadline) {
      String l = lines.poll(100, TimeUnit.MILLISECONDS);
      if (l == null) {
        continue;
      }
      synchronized (seen) {
        seen.add(l);
      }
      if (l.startsWith(prefix)) {
        return l;
      }
    }
    throw new AssertionError("the child never printed \"" + prefix + "\"; output:\n" + output());
  }

  /** The lines read so far by {@link #awaitLine}. */
  public String output() {
    synchronized (seen) {
      return String.join("\n", seen);
    }
  }

  /** SIGKILL, then waits for the process to be gone. */
  public void kill() throws InterruptedException {
    process.destroyForcibly();
    if (!process.waitFor(30, TimeUnit.SECONDS)) {
      throw new AssertionError("the child survived SIGKILL for 30 s");
    }
  }

  @Override
  public void close() {
    process.destroyForcibly();
  }
}
