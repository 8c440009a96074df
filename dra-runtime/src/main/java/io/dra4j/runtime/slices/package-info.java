/**
 * Publishing ResourceSlices without a kubelet plugin: {@link
 * io.dra4j.runtime.slices.ResourceSlicePublisher}, for a control-plane component that makes
 * network-attached devices (a rack's switch ports, fabric-attached accelerators) schedulable with
 * {@code allNodes}, a node selector or per-device node selection. It is the publisher every node
 * driver runs, with the same validation, splitting into slices and dropped-field reporting.
 */
package io.dra4j.runtime.slices;
