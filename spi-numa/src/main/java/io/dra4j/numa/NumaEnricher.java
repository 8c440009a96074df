package io.dra4j.numa;

import io.dra4j.api.device.Device;
import io.dra4j.api.device.DeviceAttribute;
import io.dra4j.api.device.PciBusId;
import io.dra4j.api.device.StandardAttributes;
import io.dra4j.api.provider.DeviceEnricher;
import io.dra4j.api.provider.ProviderContext;
import java.io.IOException;
import java.lang.System.Logger.Level;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Adds the standardized topology attributes to every device that names its PCI address, so that a
 * GPU and a NIC of different drivers can be aligned with {@code matchAttribute}:
 *
 * <ul>
 *   <li>{@code resource.kubernetes.io/pciBusID}: the input. A provider sets it as a string in any
 *       case (or NVML's 8-digit domain form); the enricher rewrites it to the canonical lower-case
 *       {@code dddd:bb:dd.f}. A device made of several PCI functions sets a list of strings,
 *       primary first; the enricher publishes the primary one. Only this standard attribute is
 *       read: it must be published anyway, and reading a driver-domain attribute would mean
 *       guessing its format.
 *   <li>{@code resource.kubernetes.io/pcieRoot}: {@code pci<domain>:<bus>} of the root complex of
 *       the primary function, or with {@code pcie-root-attribute-form=list} a string list of the
 *       roots of all functions (a device that spans roots matches a NIC under any of them).
 *   <li>{@code resource.kubernetes.io/numaNode}: an int, or with {@code numa-attribute-form=list}
 *       an int list (with the other functions' nodes after the primary's); left out when the kernel
 *       reports no affinity for the primary function.
 * </ul>
 *
 * <p>A value the provider already set is kept; when sysfs says otherwise the difference is logged
 * once per device and attribute. A device without {@code pciBusID} is returned as it is. A problem
 * with one device (an invalid address, a device missing from sysfs) is logged once and that device
 * gets what could be computed; other devices are not affected.
 *
 * <p>Settings ({@link ProviderContext#config()}):
 *
 * <ul>
 *   <li>{@value #CONFIG_FORM}: {@code scalar} (default) or {@code list}
 *   <li>{@value #CONFIG_PCIE_ROOT_FORM}: {@code scalar} (default) or {@code list}
 *   <li>{@value Sysfs#CONFIG_SYSFS_ROOT}: where the host's {@code /sys} is visible; default {@link
 *       ProviderContext#sysfsRoot()}
 * </ul>
 *
 * <p>Thread-safe. Registered for {@link java.util.ServiceLoader}.
 */
public final class NumaEnricher implements DeviceEnricher {

  /** Config key choosing the {@code numaNode} form: {@code scalar} or {@code list}. */
  public static final String CONFIG_FORM = "numa-attribute-form";

  /** Config key choosing the {@code pcieRoot} form: {@code scalar} or {@code list}. */
  public static final String CONFIG_PCIE_ROOT_FORM = "pcie-root-attribute-form";

  private static final System.Logger LOG = System.getLogger(NumaEnricher.class.getName());

  private volatile PciTopology topology;
  private volatile AttributeForm form;
  private volatile AttributeForm pcieRootForm;
  private final Set<String> reported = ConcurrentHashMap.newKeySet();

  /** Reads the host's {@code /sys} with the scalar forms until {@link #init} says otherwise. */
  public NumaEnricher() {
    this(Sysfs.host(), AttributeForm.SCALAR);
  }

  /**
   * An enricher for a given tree and {@code numaNode} form, {@code pcieRoot} scalar, for use
   * without a provider context.
   */
  public NumaEnricher(Sysfs sysfs, AttributeForm form) {
    this(sysfs, form, AttributeForm.SCALAR);
  }

  /** An enricher for a given tree, {@code numaNode} form and {@code pcieRoot} form. */
  public NumaEnricher(Sysfs sysfs, AttributeForm form, AttributeForm pcieRootForm) {
    this.topology = new PciTopology(sysfs);
    this.form = Objects.requireNonNull(form, "form");
    this.pcieRootForm = Objects.requireNonNull(pcieRootForm, "pcieRootForm");
  }

  /**
   * Takes the sysfs root and the form from the context.
   *
   * @throws IllegalArgumentException naming the key when a setting is invalid
   */
  @Override
  public void init(ProviderContext context) {
    AttributeForm f = form(context, CONFIG_FORM);
    AttributeForm root = form(context, CONFIG_PCIE_ROOT_FORM);
    Sysfs s = Sysfs.from(context);
    this.form = f;
    this.pcieRootForm = root;
    this.topology = new PciTopology(s);
    LOG.log(
        Level.DEBUG,
        "numa enricher reads {0}, numaNode form {1}, pcieRoot form {2}",
        s,
        f.configValue(),
        root.configValue());
  }

  private static AttributeForm form(ProviderContext context, String key) {
    return context.config(key).map(v -> AttributeForm.parse(key, v)).orElse(AttributeForm.SCALAR);
  }

  /** The {@code numaNode} form in use. */
  public AttributeForm form() {
    return form;
  }

  /** The {@code pcieRoot} form in use. */
  public AttributeForm pcieRootForm() {
    return pcieRootForm;
  }

  /** The sysfs tree in use. */
  public Sysfs sysfs() {
    return topology.sysfs();
  }

  @Override
  public Device enrich(String pool, Device device) {
    Optional<DeviceAttribute> input = device.attribute(StandardAttributes.PCI_BUS_ID);
    if (input.isEmpty()) {
      return device;
    }
    List<String> raw;
    if (input.get() instanceof DeviceAttribute.StringValue one) {
      raw = List.of(one.value());
    } else if (input.get() instanceof DeviceAttribute.StringValues several
        && !several.value().isEmpty()) {
      raw = several.value();
    } else {
      warnOnce(
          pool,
          device,
          StandardAttributes.PCI_BUS_ID,
          "is "
              + input.get()
              + ", not a string or a list of strings; no topology attributes added");
      return device;
    }
    List<PciBusId> ids = new ArrayList<>();
    for (String address : raw) {
      try {
        ids.add(PciBusId.parse(address));
      } catch (IllegalArgumentException e) {
        warnOnce(
            pool,
            device,
            StandardAttributes.PCI_BUS_ID,
            e.getMessage() + "; no topology attributes added");
        return device;
      }
    }
    PciTopology topo = topology;
    Device.Builder b = device.toBuilder();
    boolean changed = false;
    // The standard attribute is one address: a device of several functions publishes its primary
    // (first) one, and its other functions show in the list forms of pcieRoot and numaNode.
    PciBusId primary = ids.get(0);
    if (!(input.get() instanceof DeviceAttribute.StringValue s
        && s.value().equals(primary.value()))) {
      b.attribute(StandardAttributes.PCI_BUS_ID, primary.value());
      changed = true;
    }
    try {
      changed |= put(pool, device, b, StandardAttributes.PCIE_ROOT, pcieRoot(pool, device, ids));
    } catch (IOException | RuntimeException e) {
      warnOnce(pool, device, StandardAttributes.PCIE_ROOT, "not computed: " + e.getMessage());
    }
    try {
      changed |= put(pool, device, b, StandardAttributes.NUMA_NODE, numaNode(pool, device, ids));
    } catch (IOException | RuntimeException e) {
      warnOnce(pool, device, StandardAttributes.NUMA_NODE, "not computed: " + e.getMessage());
    }
    return changed ? b.build() : device;
  }

  /** The root of each function, distinct and primary first; one value unless the list is asked. */
  private Optional<DeviceAttribute> pcieRoot(String pool, Device device, List<PciBusId> ids)
      throws IOException {
    Set<String> roots = new LinkedHashSet<>();
    for (PciBusId id : ids) {
      roots.add(topology.pcieRoot(id));
    }
    if (pcieRootForm == AttributeForm.LIST) {
      return Optional.of(DeviceAttribute.ofStrings(List.copyOf(roots)));
    }
    String first = roots.iterator().next();
    if (roots.size() > 1) {
      warnOnce(
          pool,
          device,
          StandardAttributes.PCIE_ROOT,
          "is "
              + first
              + " (the primary function's); the device spans "
              + roots
              + ", which "
              + CONFIG_PCIE_ROOT_FORM
              + "=list publishes");
    }
    return Optional.of(DeviceAttribute.of(first));
  }

  /**
   * The physical node of the primary function; in the list form then its local nodes, then the
   * other functions' nodes and theirs. Empty when the primary function has no NUMA affinity.
   */
  private Optional<DeviceAttribute> numaNode(String pool, Device device, List<PciBusId> ids)
      throws IOException {
    OptionalInt node = topology.numaNode(ids.get(0));
    if (node.isEmpty()) {
      return Optional.empty();
    }
    if (form == AttributeForm.SCALAR) {
      return Optional.of(DeviceAttribute.of(node.getAsInt()));
    }
    Set<Long> nodes = new LinkedHashSet<>();
    for (PciBusId id : ids) {
      OptionalInt n = id == ids.get(0) ? node : topology.numaNode(id);
      if (n.isPresent()) {
        topology.localNodes(n.getAsInt()).forEach(x -> nodes.add(x.longValue()));
      }
    }
    return Optional.of(DeviceAttribute.ofInts(List.copyOf(nodes)));
  }

  /** Adds the computed value unless the provider set one; returns whether the builder changed. */
  private boolean put(
      String pool,
      Device device,
      Device.Builder b,
      String name,
      Optional<DeviceAttribute> computed) {
    Optional<DeviceAttribute> own = device.attribute(name);
    if (own.isPresent()) {
      if (disagree(own.get(), computed)) {
        warnOnce(
            pool,
            device,
            name,
            "the provider's value "
                + show(Optional.of(own.get()))
                + " is kept, but sysfs gives "
                + show(computed));
      }
      return false;
    }
    computed.ifPresent(v -> b.attribute(name, v));
    return computed.isPresent();
  }

  /**
   * A scalar and a list agree when the scalar is the list's physical (first) node: the form is the
   * operator's choice, the node is a fact.
   */
  private static boolean disagree(DeviceAttribute own, Optional<DeviceAttribute> computed) {
    if (computed.isEmpty()) {
      return true;
    }
    DeviceAttribute c = computed.get();
    if (own.equals(c)) {
      return false;
    }
    Object a = own.javaValue();
    Object z = c.javaValue();
    if (a instanceof List<?> la && !(z instanceof List<?>)) {
      return la.isEmpty() || !la.get(0).equals(z);
    }
    if (z instanceof List<?> lz && !(a instanceof List<?>)) {
      return !lz.get(0).equals(a);
    }
    return true;
  }

  private static String show(Optional<DeviceAttribute> v) {
    return v.map(a -> String.valueOf(a.javaValue())).orElse("nothing (no NUMA affinity)");
  }

  private void warnOnce(String pool, Device device, String attribute, String message) {
    if (reported.add(pool + "/" + device.name() + " " + attribute)) {
      LOG.log(
          Level.WARNING,
          "device {0} in pool {1}: {2} {3}",
          device.name(),
          pool,
          attribute,
          message);
    }
  }
}
