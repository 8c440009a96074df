package io.dra4j.testkit.allocator;

import io.dra4j.api.device.CounterSet;
import io.dra4j.api.device.Device;
import io.dra4j.api.device.DeviceToleration;
import io.dra4j.api.device.NodeSelector;
import io.dra4j.api.device.Quantity;
import io.dra4j.kube.CapacityRequirements;
import io.dra4j.kube.DeviceClaim;
import io.dra4j.kube.DeviceClaimConfiguration;
import io.dra4j.kube.DeviceClass;
import io.dra4j.kube.DeviceConstraint;
import io.dra4j.kube.DeviceRequest;
import io.dra4j.kube.DeviceSelector;
import io.dra4j.kube.ExactDeviceRequest;
import io.dra4j.kube.ObjectMeta;
import io.dra4j.kube.ResourceClaim;
import io.dra4j.kube.ResourceClaimSpec;
import io.dra4j.kube.ResourceSlice;
import io.dra4j.kube.ResourceSliceSpec;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/** Builders for the API objects the allocator tests need. */
final class Fixtures {
  static final String DRIVER = "gpu.example.com";
  static final String NODE = "node-1";

  private Fixtures() {}

  static SliceBuilder slice(String name) {
    return new SliceBuilder(name);
  }

  /** A slice of pool {@code NODE} on {@code NODE}, generation 1, the only slice of its pool. */
  static ResourceSlice nodeSlice(String name, Device... devices) {
    return slice(name).devices(devices).build();
  }

  static final class SliceBuilder {
    private final String name;
    private String driver = DRIVER;
    private String pool = NODE;
    private long generation = 1;
    private long count = 1;
    private Optional<String> nodeName = Optional.of(NODE);
    private Optional<NodeSelector> selector = Optional.empty();
    private boolean allNodes;
    private boolean perDevice;
    private final List<Device> devices = new ArrayList<>();
    private final List<CounterSet> counters = new ArrayList<>();

    SliceBuilder(String name) {
      this.name = name;
    }

    SliceBuilder driver(String value) {
      driver = value;
      return this;
    }

    SliceBuilder pool(String value, long gen, long sliceCount) {
      pool = value;
      generation = gen;
      count = sliceCount;
      return this;
    }

    SliceBuilder node(String value) {
      nodeName = Optional.of(value);
      return this;
    }

    SliceBuilder allNodes() {
      nodeName = Optional.empty();
      allNodes = true;
      return this;
    }

    SliceBuilder selector(NodeSelector value) {
      nodeName = Optional.empty();
      selector = Optional.of(value);
      return this;
    }

    SliceBuilder perDeviceNodeSelection() {
      nodeName = Optional.empty();
      perDevice = true;
      return this;
    }

    SliceBuilder devices(Device... value) {
      devices.addAll(Arrays.asList(value));
      return this;
    }

    SliceBuilder counters(CounterSet... value) {
      counters.addAll(Arrays.asList(value));
      return this;
    }

    ResourceSlice build() {
      return ResourceSlice.of(
          ObjectMeta.named("", name),
          new ResourceSliceSpec(
              driver,
              new ResourceSliceSpec.ResourcePool(pool, generation, count),
              nodeName,
              selector,
              allNodes,
              perDevice,
              devices,
              counters,
              Optional.empty(),
              List.of(),
              Map.of()));
    }
  }

  static Device.Builder device(String name) {
    return Device.builder(name);
  }

  static Device gpu(String name, String memory) {
    return Device.builder(name).attribute("type", "gpu").capacity("memory", q(memory)).build();
  }

  static Quantity q(String text) {
    return Quantity.parse(text);
  }

  static DeviceClass deviceClass(String name, String... selectors) {
    List<DeviceSelector> list = new ArrayList<>();
    for (String s : selectors) {
      list.add(DeviceSelector.cel(s));
    }
    return DeviceClass.of(ObjectMeta.named("", name), DeviceClass.Spec.of(list));
  }

  /** The class most tests use: every device of {@link #DRIVER}. */
  static DeviceClass gpuClass() {
    return deviceClass("gpu.example.com", "device.driver == 'gpu.example.com'");
  }

  static ExactDeviceRequest exact(String className, long count, String... selectors) {
    List<DeviceSelector> list = new ArrayList<>();
    for (String s : selectors) {
      list.add(DeviceSelector.cel(s));
    }
    return ExactDeviceRequest.of(className, count).withSelectors(list);
  }

  static ExactDeviceRequest all(String className) {
    return new ExactDeviceRequest(
        className, null, "All", 0, Optional.empty(), null, Optional.empty(), null);
  }

  static ExactDeviceRequest admin(String className) {
    return new ExactDeviceRequest(
        className, null, null, 1, Optional.of(true), null, Optional.empty(), null);
  }

  static ExactDeviceRequest tolerating(String className, DeviceToleration... tolerations) {
    return new ExactDeviceRequest(
        className, null, null, 1, Optional.empty(), List.of(tolerations), Optional.empty(), null);
  }

  static ExactDeviceRequest withCapacity(String className, Map<String, Quantity> capacity) {
    return new ExactDeviceRequest(
        className,
        null,
        null,
        1,
        Optional.empty(),
        null,
        Optional.of(new CapacityRequirements(capacity, null)),
        null);
  }

  static DeviceRequest request(String name, ExactDeviceRequest exactly) {
    return DeviceRequest.exactly(name, exactly);
  }

  static ResourceClaim claim(String name, DeviceRequest... requests) {
    return claim(name, List.of(requests), List.of(), List.of());
  }

  static ResourceClaim claim(
      String name,
      List<DeviceRequest> requests,
      List<DeviceConstraint> constraints,
      List<DeviceClaimConfiguration> config) {
    return ResourceClaim.of(
        ObjectMeta.named("default", name),
        ResourceClaimSpec.of(new DeviceClaim(requests, constraints, config, null)));
  }
}
