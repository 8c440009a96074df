package io.dra4j.benchmarks.cel;

import io.dra4j.api.device.Device;
import io.dra4j.api.device.DeviceAttribute;
import io.dra4j.api.device.Quantity;
import io.dra4j.cel.CelDevice;
import io.dra4j.cel.CelSelectors;
import io.dra4j.cel.CompiledSelector;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Cost of CEL device selectors: compiling (a cache miss) versus evaluating a compiled selector,
 * with and without a prepared {@link CelDevice} view.
 *
 * <p>Run: {@code java -cp <benchmarks classpath> org.openjdk.jmh.Main SelectorBench}
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
public class SelectorBench {

  static final String DRIVER = "gpu.example.com";

  static final String SIMPLE =
      "device.driver == 'gpu.example.com' && device.attributes['gpu.example.com'].type == 'gpu'";

  static final String TYPICAL =
      "device.driver == 'gpu.example.com'"
          + " && device.attributes['gpu.example.com'].type == 'gpu'"
          + " && device.capacity['gpu.example.com'].memory.compareTo(quantity('40Gi')) >= 0"
          + " && device.attributes['gpu.example.com'].driverVersion"
          + ".isGreaterThan(semver('12.0.0'))"
          + " && device.attributes['gpu.example.com'].models.includes('a100')";

  private CelSelectors cached;
  private CelSelectors uncached;
  private CompiledSelector simple;
  private CompiledSelector typical;
  private Device device;
  private CelDevice view;
  private long counter;

  @Setup
  public void setup() {
    cached = new CelSelectors();
    uncached = new CelSelectors(16);
    simple = cached.compile(SIMPLE);
    typical = cached.compile(TYPICAL);
    device =
        Device.builder("gpu-0")
            .attribute("type", "gpu")
            .attribute("driverVersion", DeviceAttribute.version("12.4.1"))
            .attribute("models", DeviceAttribute.ofStrings(List.of("a100", "a100-sxm")))
            .attribute("resource.kubernetes.io/pcieRoot", "pci0000:00")
            .capacity("memory", Quantity.parse("80Gi"))
            .build();
    view = CelDevice.of(DRIVER, device);
  }

  /** A cache miss: parse, type-check, validate and plan a new expression. */
  @Benchmark
  public CompiledSelector compileTypical() {
    return uncached.compile(TYPICAL + " && " + (counter++) + " >= 0");
  }

  /** A cache hit. */
  @Benchmark
  public CompiledSelector compileCached() {
    return cached.compile(TYPICAL);
  }

  @Benchmark
  public boolean evalSimple() {
    return simple.matches(DRIVER, device);
  }

  @Benchmark
  public boolean evalTypical() {
    return typical.matches(DRIVER, device);
  }

  /** Evaluation against a view built once, as an allocator evaluating many selectors would. */
  @Benchmark
  public boolean evalTypicalPreparedView() {
    return typical.matches(view);
  }

  @Benchmark
  public CelDevice buildView() {
    return CelDevice.of(DRIVER, device);
  }
}
