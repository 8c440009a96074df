/** The sysfs topology enricher: NUMA node, PCIe root and PCI bus ID attributes from /sys. */
module io.dra4j.numa {
  requires transitive io.dra4j.api;

  exports io.dra4j.numa;

  provides io.dra4j.api.provider.DeviceEnricher with
      io.dra4j.numa.NumaEnricher;
}
