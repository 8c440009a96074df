/**
 * The migration doctor: the Kubernetes 1.37 extended-resource migration checklist (device plugin to
 * DRA, node by node) run from outside against a live cluster, read-only.
 *
 * <p>{@link io.dra4j.runtime.internal.doctor.Doctor} is the command. {@code ClusterSnapshot} is the
 * only part that talks to the API server (GET and LIST through the runtime's {@code
 * HttpKubeClient}); {@code Diagnosis} with {@code ClaimChecks} and {@code SettingsChecks} judge the
 * snapshot as pure functions, with the extended-resource guard's rules ({@code GuardEvaluator},
 * {@code ExtendedResourceNames}) and the runtime's CEL; {@code TableWriter} and the JSON form of
 * {@code DoctorReport} present the result.
 *
 * <p>Not API: internal to dra4j, used by its own modules only, and may change in any release.
 */
package io.dra4j.runtime.internal.doctor;
