/**
 * The extended-resource migration guard (KEP-5004): one extended resource name must not be served
 * by a device plugin and by DRA on the same node, or the scheduler over-admits pods.
 *
 * <p>{@link io.dra4j.runtime.extendedresource.ExtendedResourceGuard} watches DeviceClasses and this
 * Node, evaluates the classes' CEL selectors against this driver's devices and, under the default
 * {@code wait} policy, filters out the devices of a conflicting class until the node's allocatable
 * for the name is 0, the scheduler's own rule for handing it to DRA. {@link
 * io.dra4j.runtime.extendedresource.GuardReport} says what it decided and why. dra-launcher's
 * {@code deviceclass} command writes a DeviceClass that maps a name to a driver's devices, checked
 * by the same name rules ({@link io.dra4j.runtime.extendedresource.ExtendedResourceNames}).
 */
package io.dra4j.runtime.extendedresource;
