package io.dra4j.numa;

import io.dra4j.api.device.Device;
import io.dra4j.api.device.DeviceAttribute;
import io.dra4j.api.device.StandardAttributes;
import io.dra4j.api.provider.DeviceEnricher;
import io.dra4j.api.provider.ProviderContext;
import java.io.IOException;
import java.lang.System.Logger.Level;
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
 *       {@code dddd:bb:dd.f}. Only this standard attribute is read: it must be published anyway,
 *       and reading a driver-domain attribute would mean guessing its format.
 *   <li>{@code resource.kubernetes.io/pcieRoot}: {@code pci<domain>:<bus>} of the root complex.
 *   <li>{@code resource.kubernetes.io/numaNode}: an int, or with {@code numa-attribute-form=list}
 *       an int list; left out when the kernel reports no affinity.
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
 *   <li>{@value Sysfs#CONFIG_SYSFS_ROOT}: where the host's {@code /sys} is visible; default {@link
 *       ProviderContext#sysfsRoot()}
 * </ul>
 *
 * <p>Thread-safe. Registered for {@link java.util.ServiceLoader}.
 */
public final class NumaEnricher implements DeviceEnricher {

  /** Config key choosing the {@code numaNode} form: {@code scalar} or {@code list}. */
  public static final String CONFIG_FORM = "numa-attribute-form";

  private static final System.Logger LOG = System.getLogger(NumaEnricher.class.getName());

  private volatile PciTopology topology;
  private volatile NumaAttributeForm form;
  private final Set<String> reported = ConcurrentHashMap.newKeySet();

  /** Reads the host's {@code /sys} with the scalar form until {@link #init} says otherwise. */
  public NumaEnricher() {
    this(Sysfs.host(), NumaAttributeForm.SCALAR);
  }

  /** An enricher for a given tree and form, for use without a provider context. */
  public NumaEnricher(Sysfs sysfs, NumaAttributeForm form) {
    this.topology = new PciTopology(sysfs);
    this.form = Objects.requireNonNull(form, "form");
  }

  /**
   * Takes the sysfs root and the form from the context.
   *
   * @throws IllegalArgumentException naming the key when a setting is invalid
   */
  @Override
  public void init(ProviderContext context) {
    NumaAttributeForm f =
        context.config(CONFIG_FORM).map(NumaAttributeForm::parse).orElse(NumaAttributeForm.SCALAR);
    Sysfs s = Sysfs.from(context);
    this.form = f;
    this.topology = new PciTopology(s);
    LOG.log(Level.DEBUG, "numa enricher reads {0}, numaNode form {1}", s, f.configValue());
  }

  /** The form in use. */
  public NumaAttributeForm form() {
    return form;
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
    if (!(input.get() instanceof DeviceAttribute.StringValue raw)) {
      warnOnce(
          pool,
          device,
          StandardAttributes.PCI_BUS_ID,
          "is " + input.get() + ", not a string; no topology attributes added");
      return device;
    }
    PciBusId id;
    try {
      id = PciBusId.parse(raw.value());
    } catch (IllegalArgumentException e) {
      warnOnce(
          pool,
          device,
          StandardAttributes.PCI_BUS_ID,
          e.getMessage() + "; no topology attributes added");
      return device;
    }
    PciTopology topo = topology;
    Device.Builder b = device.toBuilder();
    boolean changed = false;
    if (!raw.value().equals(id.value())) {
      b.attribute(StandardAttributes.PCI_BUS_ID, id.value());
      changed = true;
    }
    try {
      changed |=
          put(pool, device, b, StandardAttributes.PCIE_ROOT, Optional.of(attr(topo.pcieRoot(id))));
    } catch (IOException | RuntimeException e) {
      warnOnce(pool, device, StandardAttributes.PCIE_ROOT, "not computed: " + e.getMessage());
    }
    try {
      OptionalInt node = topo.numaNode(id);
      Optional<DeviceAttribute> value = Optional.empty();
      if (node.isPresent()) {
        value =
            Optional.of(
                form == NumaAttributeForm.LIST
                    ? DeviceAttribute.ofInts(
                        topo.localNodes(node.getAsInt()).stream().map(Long::valueOf).toList())
                    : DeviceAttribute.of(node.getAsInt()));
      }
      changed |= put(pool, device, b, StandardAttributes.NUMA_NODE, value);
    } catch (IOException | RuntimeException e) {
      warnOnce(pool, device, StandardAttributes.NUMA_NODE, "not computed: " + e.getMessage());
    }
    return changed ? b.build() : device;
  }

  private static DeviceAttribute attr(String s) {
    return DeviceAttribute.of(s);
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
