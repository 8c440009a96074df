package ${package};

import io.dra4j.api.cdi.ContainerEdits;
import io.dra4j.api.cdi.DeviceNode;
import io.dra4j.api.claim.AllocatedDevice;
import io.dra4j.api.claim.ClaimAllocation;
import io.dra4j.api.claim.PrepareResult;
import io.dra4j.api.claim.PreparedClaim;
import io.dra4j.api.claim.PreparedDevice;
import io.dra4j.api.device.Device;
import io.dra4j.api.device.Quantity;
import io.dra4j.api.provider.DeviceProvider;
import io.dra4j.api.provider.Inventory;
import io.dra4j.api.provider.ProviderContext;
import java.util.ArrayList;
import java.util.List;

/**
 * The devices of ${driverName}. Listed in META-INF/services/io.dra4j.api.provider.DeviceProvider,
 * so the launcher finds it; dra4j does the rest (kubelet sockets, ResourceSlices, CDI specs,
 * checkpoints, claim status).
 */
public final class MyDeviceProvider implements DeviceProvider {
  @Override
  public String name() {
    return "${artifactId}";
  }

  /**
   * Finds this node's devices: called once at start, and again after {@code
   * context.inventoryChanged()} (hot-plug). Devices are published as ResourceSlices of one pool
   * named after the node. Throwing makes the runtime log, retry with backoff, and keep what it
   * published before. It may run while a prepare runs.
   */
  @Override
  public Inventory discover(ProviderContext context) {
    List<Device> devices = new ArrayList<>();
    // Replace with real discovery: read sysfs under context.sysfsRoot(), call your library, ...
    for (int i = 0; i < 2; i++) {
      devices.add(
          Device.builder("accel-" + i)
              .attribute("model", "example-x1") // CEL: device.attributes['${driverName}'].model
              .attribute("index", i)
              .capacity("memory", Quantity.parse("16Gi"))
              .build());
    }
    return Inventory.nodeLocal(context, devices);
  }

  /**
   * Sets up the devices of one claim and says what its containers get (CDI edits: device nodes,
   * environment, mounts, hooks). Must be deterministic for the same allocation: the kubelet
   * repeats calls, and the runtime answers a repeated one from its checkpoint. Throw {@code
   * DeviceException} to fail this claim with a message the pod's owner sees. Not called
   * concurrently unless {@link #threadSafe()} says so.
   */
  @Override
  public PrepareResult prepare(ClaimAllocation allocation) {
    List<PreparedDevice> prepared = new ArrayList<>();
    for (AllocatedDevice d : allocation.devices()) {
      ContainerEdits edits =
          ContainerEdits.builder()
              .env("EXAMPLE_DEVICE", d.device())
              // Required device node: a missing node fails the claim instead of starting a pod
              // without its device. Replace /dev/null with your device's node.
              .deviceNode(DeviceNode.builder("/dev/example0").hostPath("/dev/null").build())
              .build();
      prepared.add(PreparedDevice.of(d, edits));
    }
    return PrepareResult.of(prepared);
  }

  /**
   * Releases what {@link #prepare} set up. Must succeed when some or all of it is released
   * already: the driver can crash between any two steps, and the kubelet retries.
   */
  @Override
  public void unprepare(PreparedClaim claim) {
    // Nothing to release for a device node.
  }
}
