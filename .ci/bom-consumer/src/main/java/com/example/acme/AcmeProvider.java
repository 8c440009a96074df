package com.example.acme;

import io.dra4j.api.cdi.ContainerEdits;
import io.dra4j.api.cdi.DeviceNode;
import io.dra4j.api.claim.AllocatedDevice;
import io.dra4j.api.claim.ClaimAllocation;
import io.dra4j.api.claim.PrepareResult;
import io.dra4j.api.claim.PreparedClaim;
import io.dra4j.api.claim.PreparedDevice;
import io.dra4j.api.device.Device;
import io.dra4j.api.provider.DeviceProvider;
import io.dra4j.api.provider.Inventory;
import io.dra4j.api.provider.ProviderContext;
import java.util.ArrayList;
import java.util.List;

/** A vendor's provider, written against the published API only. */
public final class AcmeProvider implements DeviceProvider {
  @Override
  public String name() {
    return "acme";
  }

  @Override
  public Inventory discover(ProviderContext context) {
    List<Device> devices = new ArrayList<>();
    for (int i = 0; i < 2; i++) {
      devices.add(Device.builder("accel-" + i).attribute("index", i).build());
    }
    return Inventory.nodeLocal(context, devices);
  }

  @Override
  public PrepareResult prepare(ClaimAllocation allocation) {
    List<PreparedDevice> prepared = new ArrayList<>();
    for (AllocatedDevice d : allocation.devices()) {
      ContainerEdits edits =
          ContainerEdits.builder()
              .deviceNode(DeviceNode.builder("/dev/acme0").hostPath("/dev/null").build())
              .build();
      prepared.add(PreparedDevice.of(d, edits));
    }
    return PrepareResult.of(prepared);
  }

  @Override
  public void unprepare(PreparedClaim claim) {}
}
