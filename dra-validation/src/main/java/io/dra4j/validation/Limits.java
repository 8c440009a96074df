package io.dra4j.validation;

/**
 * The resource.k8s.io/v1 ResourceSlice limits dra4j enforces: the strictest values of Kubernetes
 * 1.35 and later. Where 1.34 differed, the comment says so; a driver that passes these limits is
 * also accepted by 1.34 except where noted.
 */
public final class Limits {
  private Limits() {}

  /** Devices per slice ({@code ResourceSliceMaxDevices}). */
  public static final int MAX_DEVICES_PER_SLICE = 128;

  /**
   * Devices per slice when any device of the slice has taints, consumes counters or has a list
   * attribute ({@code ResourceSliceMaxDevicesWithAdvancedFeatures}, 1.35+; 1.34 allowed 128).
   */
  public static final int MAX_DEVICES_PER_SLICE_WITH_ADVANCED_FEATURES = 64;

  /** Counter sets per slice (1.35+; 1.34 capped the counters summed over all sets at 32). */
  public static final int MAX_COUNTER_SETS_PER_SLICE = 8;

  /** Counters per counter set (1.35+). */
  public static final int MAX_COUNTERS_PER_COUNTER_SET = 32;

  /** {@code consumesCounters} entries per device (1.35+). */
  public static final int MAX_COUNTER_CONSUMPTIONS_PER_DEVICE = 2;

  /** Counters per {@code consumesCounters} entry (1.35+; 1.34: 32 per device). */
  public static final int MAX_COUNTERS_PER_CONSUMPTION = 32;

  /**
   * Compatibility groups per {@code consumesCounters} entry (1.37, {@code
   * DeviceCompatibilityGroupsMaxSize}).
   */
  public static final int MAX_COMPATIBILITY_GROUPS = 2;

  /** Attributes plus capacities per device. */
  public static final int MAX_ATTRIBUTES_AND_CAPACITIES_PER_DEVICE = 32;

  /** Attribute values per device, list items counted one by one (1.36+). */
  public static final int MAX_ATTRIBUTE_VALUES_PER_DEVICE = 48;

  /** Bytes of a string or version attribute value (UTF-8). */
  public static final int MAX_ATTRIBUTE_VALUE_BYTES = 64;

  /** Characters of the name part of an attribute or capacity key (a C identifier). */
  public static final int ATTRIBUTE_ID_MAX_LENGTH = 32;

  /** Characters of the domain part of an attribute or capacity key. */
  public static final int ATTRIBUTE_DOMAIN_MAX_LENGTH = 63;

  /** Characters of a driver name. */
  public static final int DRIVER_NAME_MAX_LENGTH = 63;

  /** Characters of a pool name. */
  public static final int POOL_NAME_MAX_LENGTH = 253;

  /** Taints per device (1.35+; 1.34 allowed 4). */
  public static final int MAX_TAINTS_PER_DEVICE = 16;

  /** Binding conditions, and separately binding failure conditions, per device. */
  public static final int MAX_BINDING_CONDITIONS = 4;

  /** Entries of a capacity request policy's {@code validValues}. */
  public static final int MAX_REQUEST_POLICY_VALID_VALUES = 10;
}
