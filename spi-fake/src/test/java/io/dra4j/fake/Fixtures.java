package io.dra4j.fake;

import io.dra4j.api.device.Device;
import io.dra4j.api.provider.Inventory;
import io.dra4j.api.provider.Pool;
import io.dra4j.api.provider.ProviderContext;
import java.util.Map;

final class Fixtures {
  static final String DRIVER = "fake.dra4j.io";
  static final String NODE = "node-a";

  private Fixtures() {}

  static ProviderContext context(Map<String, String> config) {
    return ProviderContext.builder(DRIVER, NODE).config(config).build();
  }

  static FakeDeviceProvider discovered(Map<String, String> config) {
    FakeDeviceProvider p = new FakeDeviceProvider();
    p.discover(context(config));
    return p;
  }

  static Pool pool(Inventory inv) {
    return inv.pools().get(0);
  }

  static Device device(Inventory inv, String name) {
    return pool(inv).devices().stream()
        .filter(d -> d.name().equals(name))
        .findFirst()
        .orElseThrow(() -> new AssertionError("no device " + name));
  }
}
