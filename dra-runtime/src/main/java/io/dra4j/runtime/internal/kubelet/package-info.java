/**
 * The kubelet plugin contract over Unix sockets: plugin registration, the DRA node service (v1 and
 * v1beta1) and the device health stream (v1 and v1alpha1).
 *
 * <p>{@link io.dra4j.runtime.internal.kubelet.KubeletPluginServer} owns the sockets and the gRPC
 * servers; the rest of the runtime plugs in through two small seams: {@link
 * io.dra4j.runtime.internal.kubelet.NodeService} (prepare and unprepare) and {@link
 * io.dra4j.runtime.internal.kubelet.HealthSource} (full-list health snapshots).
 *
 * <p>Not API: internal to dra4j, used by its own modules only, and may change in any release.
 */
package io.dra4j.runtime.internal.kubelet;
