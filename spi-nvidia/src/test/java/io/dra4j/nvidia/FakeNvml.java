package io.dra4j.nvidia;

import com.sun.jna.Library;
import com.sun.jna.Native;
import io.dra4j.api.provider.ProviderContext;
import io.dra4j.runtime.testsupport.PeerTools;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The fake {@code libnvidia-ml.so.1} built from src/test/c by the Maven build: where it is, how to
 * configure a scenario, and its test-only controls (inject events, lose a GPU). The provider under
 * test loads the same file through its real JNA path, so both share one library instance.
 */
public final class FakeNvml {

  /** The fake library's test-only entry points. */
  public interface Control extends Library {
    void fake_nvml_set_config(String path);

    int fake_nvml_inject_event(int gpu, long type, long data, int gpuInstance, int computeInstance);

    void fake_nvml_set_lost(int gpu, int lost);

    int fake_nvml_init_count();
  }

  public static final long XID = 0x8L;
  public static final long DBE = 0x2L;
  public static final int NO_INSTANCE = 0xFFFFFFFF;

  private final Path library;
  private final Control control;

  private FakeNvml(Path library) {
    this.library = library;
    this.control = Native.load(library.toString(), Control.class);
  }

  /** The current fake (skips the test when it was not built). */
  public static FakeNvml current() {
    return load("current");
  }

  /** A build without nvmlInitWithFlags and nvmlSystemGetCudaDriverVersion_v2, like old drivers. */
  public static FakeNvml legacy() {
    return load("legacy");
  }

  private static FakeNvml load(String variant) {
    String dir = System.getProperty("dra4j.fakeNvmlDir");
    Path lib =
        dir == null
            ? null
            : Path.of(dir, variant, "libnvidia-ml.so.1").toAbsolutePath().normalize();
    if (lib == null || !Files.isRegularFile(lib)) {
      PeerTools.unavailable(
          "the fake libnvidia-ml.so.1 (built with gcc into target/fake-nvml) is missing");
    }
    return new FakeNvml(lib);
  }

  public Path library() {
    return library;
  }

  public Control control() {
    return control;
  }

  /** Writes a scenario file and makes the next nvmlInit read it. */
  public void configure(Path dir, String... lines) throws IOException {
    List<String> all = new ArrayList<>(List.of(lines));
    Path file = Files.createTempFile(dir, "fake-nvml", ".conf");
    Files.write(file, all);
    if (control.fake_nvml_init_count() != 0) {
      throw new IllegalStateException(
          "NVML is still initialised by an earlier test: a provider was not closed");
    }
    control.fake_nvml_set_config(file.toString());
  }

  /** A context whose provider loads this fake, with extra settings. */
  public ProviderContext context(Path tmp, Map<String, String> settings) {
    Map<String, String> config = new TreeMap<>();
    config.put("nvml-library", library.toString());
    config.put("proc-root", tmp.resolve("proc").toString());
    config.put("health-wait-ms", "200");
    config.putAll(settings);
    return ProviderContext.builder("gpu.nvidia.com", "node-a")
        .config(config)
        .sysfsRoot(tmp.resolve("sys"))
        .devRoot(tmp.resolve("dev"))
        .pluginDataDir(tmp.resolve("plugin"))
        .build();
  }

  public ProviderContext context(Path tmp) {
    return context(tmp, Map.of());
  }

  public int initCount() {
    return control.fake_nvml_init_count();
  }
}
