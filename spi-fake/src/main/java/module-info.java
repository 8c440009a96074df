/** Simulated devices: a {@code DeviceProvider} for demos and tests, no hardware needed. */
module io.dra4j.fake {
  requires transitive io.dra4j.api;

  exports io.dra4j.fake;

  // The runtime's Jackson builds the provider's opaque configuration reflectively.
  opens io.dra4j.fake to
      com.fasterxml.jackson.databind;

  provides io.dra4j.api.provider.DeviceProvider with
      io.dra4j.fake.FakeDeviceProvider;
}
