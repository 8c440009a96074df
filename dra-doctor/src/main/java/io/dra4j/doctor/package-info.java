/**
 * The migration doctor: the Kubernetes 1.37 extended-resource migration checklist (device plugin to
 * DRA, node by node) run from outside against a live cluster, read-only.
 *
 * <p>{@link io.dra4j.doctor.Doctor} is the command ({@code java -jar dra4j-doctor.jar}, or {@code
 * doctor} of any driver jar that bundles dra-doctor: {@code DoctorCommand} contributes it to the
 * launcher). {@code ClusterSnapshot} is the only part that talks to the API server (GET and LIST
 * through dra-kube's {@code HttpKubeClient}); {@code Diagnosis} with {@code ClaimChecks} and {@code
 * SettingsChecks} judge the snapshot as pure functions, with the extended-resource guard's own
 * rules ({@code GuardEvaluator}, {@code ExtendedResourceNames}, exported to this module by the
 * core) and dra-cel; {@code TableWriter} and the JSON form of {@code DoctorReport} present the
 * result.
 *
 * <p>API: {@link io.dra4j.doctor.Doctor#run} and {@link io.dra4j.doctor.Doctor#main}; everything
 * else is package-private.
 */
package io.dra4j.doctor;
