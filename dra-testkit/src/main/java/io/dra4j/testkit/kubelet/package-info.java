/**
 * A kubelet stand-in for DRA drivers: {@link io.dra4j.testkit.kubelet.KubeletSimulator} watches a
 * registration directory, registers plugins the way the kubelet does and calls them over their Unix
 * sockets. It is only a gRPC client, so it works against any driver, in any language. {@link
 * io.dra4j.testkit.kubelet.DeviceManager} writes a Node's status for device plugins as the
 * kubelet's device manager does (allocatable 0 when a plugin stops, capacity 0 after its grace
 * period), for tests of the migration from a device plugin to DRA.
 */
package io.dra4j.testkit.kubelet;
