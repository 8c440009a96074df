package io.dra4j.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The script as a user runs it: {@code eval "$(e2e/cluster.sh up)"} gives a shell whose plain
 * {@code kubectl} is the built v1.37.2 one talking to the new cluster, and {@code down} leaves no
 * process behind and no folder.
 */
class ClusterScriptIT {
  @Test
  void upPrintsWhatAShellEvaluatesAndDownLeavesNothingRunning() throws Exception {
    Cluster shared = Cluster.shared(); // built, and proves the binaries are there
    Path dir = shared.dir().resolveSibling("cluster-script-it");
    run(shared.script().toString(), "down", "--dir", dir.toString());
    String shell =
        "eval \"$('"
            + shared.script()
            + "' up --dir '"
            + dir
            + "')\" && kubectl get --raw /version && echo \"KUBECONFIG=$KUBECONFIG\"";
    String out = run("bash", "-c", shell);
    assertThat(out).contains("\"gitVersion\": \"v1.37.2\"");
    assertThat(out).contains("KUBECONFIG=" + dir.toRealPath().resolve("admin.kubeconfig"));

    List<Long> pids = new ArrayList<>();
    try (var files = Files.list(dir.resolve("pids"))) {
      for (Path p : files.filter(f -> f.toString().endsWith(".pid")).toList()) {
        pids.add(Long.parseLong(Files.readString(p).strip()));
      }
    }
    assertThat(pids).hasSize(4); // etcd, kube-apiserver, kube-scheduler, kube-controller-manager
    for (long pid : pids) {
      assertThat(ProcessHandle.of(pid).map(ProcessHandle::isAlive)).contains(true);
    }

    run(shared.script().toString(), "down", "--dir", dir.toString());
    for (long pid : pids) {
      assertThat(ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false))
          .as("process " + pid + " after down")
          .isFalse();
    }
    assertThat(dir).doesNotExist();
  }

  /**
   * {@code start NAME --feature-gates G} adds G to the component's gates for that start only (the
   * fleet benchmark's side-by-side scheduler run); the next plain {@code start} has the cluster's
   * gates again. The start waits for the scheduler's healthz, so a gate 1.37.2 does not know would
   * fail it.
   */
  @Test
  void startWithFeatureGatesAddsThemForThatStartOnly() throws Exception {
    Cluster cluster = Cluster.shared();
    Path args = cluster.dir().resolve("pids/kube-scheduler.args");
    String saved = Files.readString(args);
    try {
      cluster.stop("kube-scheduler", false);
      script(
          cluster, "start", "kube-scheduler", "--feature-gates", "SchedulerPreQueueingHints=true");
      assertThat(schedulerCommandLine(cluster)).contains(",SchedulerPreQueueingHints=true");
      assertThat(Files.readString(args)).isEqualTo(saved);
    } finally {
      cluster.stop("kube-scheduler", false);
      cluster.start("kube-scheduler");
    }
    assertThat(schedulerCommandLine(cluster)).doesNotContain("SchedulerPreQueueingHints");
  }

  private static String schedulerCommandLine(Cluster cluster) throws IOException {
    String pid = Files.readString(cluster.dir().resolve("pids/kube-scheduler.pid")).strip();
    return Files.readString(Path.of("/proc", pid, "cmdline")).replace('\0', ' ');
  }

  private static void script(Cluster cluster, String... args) throws Exception {
    List<String> cmd = new ArrayList<>(List.of("env", "DRA4J_CLUSTER_DIR=" + cluster.dir()));
    cmd.add(cluster.script().toString());
    cmd.addAll(List.of(args));
    run(cmd.toArray(String[]::new));
  }

  private static String run(String... cmd) throws IOException, InterruptedException {
    Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
    byte[] out = p.getInputStream().readAllBytes();
    assertThat(p.waitFor(5, TimeUnit.MINUTES)).isTrue();
    String text = new String(out, StandardCharsets.UTF_8);
    assertThat(p.exitValue()).as(text).isZero();
    return text;
  }
}
