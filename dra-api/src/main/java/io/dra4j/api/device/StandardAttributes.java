package io.dra4j.api.device;

/**
 * The standardized {@code resource.kubernetes.io/} device attributes. Users align devices of
 * different drivers with them ({@code matchAttribute}), which only works when every driver computes
 * them the same way; spi-numa does that for any device that names its PCI address.
 */
public final class StandardAttributes {
  private StandardAttributes() {}

  /** The reserved domain prefix. */
  public static final String PREFIX = "resource.kubernetes.io/";

  /** String, extended BDF {@code dddd:bb:dd.f}, lower-case hex. */
  public static final String PCI_BUS_ID = PREFIX + "pciBusID";

  /** String {@code pci<domain>:<bus>}: the PCIe root complex. */
  public static final String PCIE_ROOT = PREFIX + "pcieRoot";

  /** Int (physical NUMA node) or int list; never published without NUMA affinity. */
  public static final String NUMA_NODE = PREFIX + "numaNode";
}
