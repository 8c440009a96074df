package io.dra4j.runtime.testsupport;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.stream.Stream;

/**
 * The real helm, built from its Go module by {@code .ci/install-helm.sh}: {@code DRA4J_HELM}, else
 * the newest one cached under {@code ~/.cache/dra4j/helm-VERSION/bin}. Missing, it is a missing
 * peer ({@link PeerTools#unavailable}).
 */
public final class Helm {
  private Helm() {}

  /** Runs helm with these arguments. */
  public static PeerTools.Output run(String... args) throws IOException, InterruptedException {
    List<String> command = new ArrayList<>();
    command.add(binary().toString());
    command.addAll(List.of(args));
    return PeerTools.exec(command, Duration.ofSeconds(60));
  }

  /** {@code helm template RELEASE CHART --namespace NS [-f VALUES]}; fails the test on an error. */
  public static String template(String release, Path chart, String namespace, Optional<Path> values)
      throws IOException, InterruptedException {
    List<String> args =
        new ArrayList<>(List.of("template", release, chart.toString(), "--namespace", namespace));
    values.ifPresent(v -> args.addAll(List.of("-f", v.toString())));
    PeerTools.Output out = run(args.toArray(String[]::new));
    if (out.exitCode() != 0) {
      throw new AssertionError("helm " + String.join(" ", args) + " failed:\n" + out.stderr());
    }
    return out.stdout();
  }

  private static Path binary() throws IOException {
    String configured = System.getenv("DRA4J_HELM");
    if (configured != null && !configured.isEmpty()) {
      return Path.of(configured);
    }
    Path cache = Path.of(System.getProperty("user.home"), ".cache", "dra4j");
    if (Files.isDirectory(cache)) {
      try (Stream<Path> dirs = Files.list(cache)) {
        Optional<Path> newest =
            dirs.filter(d -> d.getFileName().toString().startsWith("helm-"))
                .map(d -> d.resolve("bin/helm"))
                .filter(Files::isExecutable)
                .max(Comparator.naturalOrder());
        if (newest.isPresent()) {
          return newest.get();
        }
      }
    }
    PeerTools.unavailable("helm is not built; run .ci/install-helm.sh (or set DRA4J_HELM)");
    throw new AssertionError("unreachable");
  }
}
