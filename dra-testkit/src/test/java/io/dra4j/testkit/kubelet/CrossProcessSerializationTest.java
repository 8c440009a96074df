package io.dra4j.testkit.kubelet;

import static io.dra4j.testkit.kubelet.Harness.WAIT;
import static org.assertj.core.api.Assertions.assertThat;

import io.dra4j.api.claim.ClaimRef;
import io.dra4j.api.provider.DeviceProvider;
import io.dra4j.runtime.internal.kubelet.KubeletPluginServer;
import io.dra4j.runtime.internal.kubelet.SocketNames;
import io.dra4j.runtime.testsupport.Await;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Rolling update: an old and a new driver process serialize prepare through {@code serialize.lock}.
 * This JVM's claim pipeline holds the lock (its provider blocks inside prepare) while a child JVM's
 * pipeline gets a prepare; the log both append to must show the child entering only after this
 * process left.
 */
class CrossProcessSerializationTest {

  @TempDir Path tmp;

  @Test
  void theSecondProcessWaitsForTheFirst() throws Exception {
    Path registry = tmp.resolve("registry");
    Path pluginDir = tmp.resolve("plugins").resolve(SerializeChild.DRIVER);
    Path log = tmp.resolve("critical-sections.log");
    Path childOutput = tmp.resolve("child.out");
    Path cdiDir = tmp.resolve("cdi");
    Files.createDirectories(pluginDir);
    CountDownLatch parentInside = new CountDownLatch(1);
    CountDownLatch releaseParent = new CountDownLatch(1);

    DeviceProvider parentProvider =
        SerializeChild.provider(
            () -> {
              SerializeChild.append(log, "parent enter");
              parentInside.countDown();
              releaseParent.await(30, TimeUnit.SECONDS);
              SerializeChild.append(log, "parent exit");
            });

    Process child =
        new ProcessBuilder(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-cp",
                System.getProperty("java.class.path"),
                SerializeChild.class.getName(),
                registry.toString(),
                pluginDir.toString(),
                "pod-child",
                log.toString(),
                cdiDir.toString())
            .redirectErrorStream(true)
            .redirectOutput(childOutput.toFile())
            .start();
    try (KubeletSimulator kubelet = KubeletSimulator.start(registry, Duration.ofMillis(20));
        KubeletPluginServer parent =
            SerializeChild.driver(parentProvider, registry, pluginDir, cdiDir, "pod-parent")
                .start()) {
      PluginInstance parentPlugin = kubelet.awaitPluginAt(parent.registrationSocket(), WAIT);
      Path childSocket =
          SocketNames.registrationSocket(registry, SerializeChild.DRIVER, Optional.of("pod-child"));
      PluginInstance childPlugin;
      try {
        childPlugin = kubelet.awaitPluginAt(childSocket, Duration.ofSeconds(60));
      } catch (IllegalStateException e) {
        throw new AssertionError("child did not register; its output:\n" + read(childOutput), e);
      }

      CompletableFuture<Map<String, ClaimResult>> first =
          CompletableFuture.supplyAsync(
              () -> parentPlugin.prepare(List.of(ClaimRef.of("ns", "a", "uid-a"))),
              Harness.THREADS);
      assertThat(parentInside.await(20, TimeUnit.SECONDS)).isTrue();
      CompletableFuture<Map<String, ClaimResult>> second =
          CompletableFuture.supplyAsync(
              () -> childPlugin.prepare(List.of(ClaimRef.of("ns", "b", "uid-b"))), Harness.THREADS);
      awaitLine(log, "child requested");
      // Best evidence that the child is blocked on the lock file and not merely slow: the kernel
      // lists its pending lock request. Ordering below is the proof either way.
      boolean seenBlocked = awaitBlockedOnLock(child.pid(), pluginDir.resolve("serialize.lock"));
      releaseParent.countDown();

      assertThat(first.get(30, TimeUnit.SECONDS).get("uid-a").isOk()).isTrue();
      assertThat(second.get(30, TimeUnit.SECONDS).get("uid-b").isOk())
          .as("child output:\n%s", read(childOutput))
          .isTrue();
      assertThat(Files.readAllLines(log))
          .containsExactly(
              "parent enter", "child requested", "parent exit", "child enter", "child exit");
      if (!seenBlocked) {
        System.err.println("WARNING: /proc/locks did not show the child waiting (not Linux?)");
      }
    } finally {
      child.getOutputStream().close(); // the child exits when its stdin closes
      if (!child.waitFor(20, TimeUnit.SECONDS)) {
        child.destroyForcibly();
      }
    }
  }

  private static void awaitLine(Path log, String line) {
    Await.until(
        "\"" + line + "\" in " + log,
        WAIT,
        () -> Files.exists(log) && Files.readAllLines(log).contains(line));
  }

  /** Waits until /proc/locks shows {@code pid} waiting ("->") for a lock on {@code file}. */
  private static boolean awaitBlockedOnLock(long pid, Path file) throws Exception {
    Path locks = Path.of("/proc/locks");
    if (!Files.isReadable(locks)) {
      return false;
    }
    long inode = (Long) Files.getAttribute(file, "unix:ino");
    Await.until(
        "the child waiting for the lock on " + file,
        WAIT,
        () ->
            Files.readAllLines(locks).stream()
                .map(line -> line.trim().split("\\s+"))
                // "1: -> POSIX  ADVISORY  WRITE 5973 fe:00:2146610 0 EOF"
                .anyMatch(
                    f ->
                        f.length >= 7
                            && f[1].equals("->")
                            && f[5].equals(Long.toString(pid))
                            && f[6].endsWith(":" + inode)));
    return true;
  }

  private static String read(Path p) {
    try {
      return Files.exists(p) ? Files.readString(p, StandardCharsets.UTF_8) : "(none)";
    } catch (IOException e) {
      return e.toString();
    }
  }
}
