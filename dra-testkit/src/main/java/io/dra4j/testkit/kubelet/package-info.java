/**
 * A kubelet stand-in for DRA drivers: {@link io.dra4j.testkit.kubelet.KubeletSimulator} watches a
 * registration directory, registers plugins the way the kubelet does and calls them over their Unix
 * sockets. It is only a gRPC client, so it works against any driver, in any language.
 */
package io.dra4j.testkit.kubelet;
