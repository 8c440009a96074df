package io.dra4j.runtime.errors;

import java.util.List;
import java.util.Objects;

/**
 * The API server stored a ResourceSlice without some of the fields the driver sent: it drops the
 * fields of a feature whose gate is off instead of refusing them. The slice publisher reports one
 * for each slice it happens to (the {@link DriverError#cause()} of a {@link
 * DriverError.Source#SLICES} error), adopts what the server stored so that it does not write the
 * slice again and again, and goes on. Upstream's {@code resourceslice.DroppedFieldsError}
 * (k8s.io/dynamic-resource-allocation v0.37.2).
 */
public final class DroppedFieldsException extends Exception {
  private static final long serialVersionUID = 1L;

  /** What {@link #disabledFeatures()} holds when no known gate explains the difference. */
  public static final String UNKNOWN = "unknown";

  private final String pool;
  private final int sliceIndex;
  private final List<String> disabledFeatures;

  /**
   * A report for one slice.
   *
   * @param pool the pool
   * @param sliceIndex the slice's index in the pool's layout
   * @param disabledFeatures the feature gates that are probably off, in a fixed order
   */
  public DroppedFieldsException(String pool, int sliceIndex, List<String> disabledFeatures) {
    super(
        "pool \""
            + pool
            + "\", slice #"
            + sliceIndex
            + ": the API server did not store some fields; these feature gates are probably off: "
            + String.join(", ", disabledFeatures));
    this.pool = Objects.requireNonNull(pool, "pool");
    this.sliceIndex = sliceIndex;
    this.disabledFeatures = List.copyOf(disabledFeatures);
  }

  /** The pool of the slice. */
  public String pool() {
    return pool;
  }

  /** The slice's index in the pool's layout. */
  public int sliceIndex() {
    return sliceIndex;
  }

  /**
   * The Kubernetes feature gates that are probably off, in a fixed order: {@code DRADeviceTaints},
   * {@code DRAPartitionableDevices}, {@code DRADeviceBindingConditions}, {@code
   * DRAConsumableCapacity}, {@code DRAPartitionableDevicesType}, {@code DRAOptionalNodeOperations},
   * {@code DRADeviceCompatibilityGroups} (upstream's gates, in upstream's order), then {@code
   * DRAListTypeAttributes} and {@code DRANodeAllocatableResources}, which upstream does not tell
   * apart; {@link #UNKNOWN} alone when none explains what was dropped.
   */
  public List<String> disabledFeatures() {
    return disabledFeatures;
  }
}
