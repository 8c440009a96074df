/**
 * The kubelet plugin contract over Unix sockets: plugin registration, the DRA node service (v1 and
 * v1beta1) and the device health stream (v1 and v1alpha1). Each service has one implementation in
 * v1's messages and a thin adapter per older version that converts its messages, as the Go helper
 * does.
 *
 * <p>{@link io.dra4j.runtime.internal.kubelet.KubeletPluginServer} owns the sockets and the gRPC
 * servers; the rest of the runtime plugs in through two small seams: {@link
 * io.dra4j.runtime.internal.claims.NodeService} (prepare and unprepare, offered by the claims
 * package) and {@link io.dra4j.runtime.internal.kubelet.HealthSource} (full-list health snapshots).
 *
 * <p>Not API: internal to dra4j, used by its own modules only, and may change in any release.
 */
package io.dra4j.runtime.internal.kubelet;
