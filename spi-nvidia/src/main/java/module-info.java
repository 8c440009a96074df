/** NVIDIA GPUs through NVML (JNA): discovery, MIG, CDI edits and XID health events. */
module io.dra4j.nvidia {
  requires transitive io.dra4j.api;
  requires com.sun.jna;
  requires org.slf4j;

  exports io.dra4j.nvidia;
  exports io.dra4j.nvidia.nvml;

  // The runtime's Jackson builds the provider's opaque configuration reflectively.
  opens io.dra4j.nvidia to
      com.fasterxml.jackson.databind;
  // JNA maps NVML's structures and its library interface reflectively.
  opens io.dra4j.nvidia.nvml to
      com.sun.jna;

  provides io.dra4j.api.provider.DeviceProvider with
      io.dra4j.nvidia.NvidiaDeviceProvider;
}
