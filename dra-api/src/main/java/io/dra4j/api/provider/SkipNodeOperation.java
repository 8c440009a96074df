package io.dra4j.api.provider;

import static io.dra4j.api.feature.FeatureGate.Stage.ALPHA;

import io.dra4j.api.feature.FeatureGate;

/**
 * A kubelet call that devices of a pool do not need (KEP-5945, resource.k8s.io/v1 {@code
 * SkipNodeOperation}, k8s.io/api v0.37.2 resource/v1/types.go:232-267): the scheduler copies the
 * pool's list into each allocation and the kubelet skips the call for a claim when every device of
 * this driver in it skips the call. A device that needs no node-side setup (a network-attached
 * accelerator, say) can then be used without the driver being registered on the node.
 *
 * <p>The scheduler gives such devices only to nodes that declare the {@code
 * DRAOptionalNodeOperations} feature ({@code Node.status.declaredFeatures}). That takes the gate
 * {@code DRAOptionalNodeOperations} on the kubelet, the API server and the scheduler; {@code
 * NodeDeclaredFeatures}, which it depends on, is GA and locked on in Kubernetes 1.37
 * (k8s.io/kubernetes v1.37.2 pkg/features/kube_features.go:1892-1896, :2605).
 */
@FeatureGate(name = "DRAOptionalNodeOperations", stage = ALPHA)
public enum SkipNodeOperation {
  /** Skip NodePrepareResources; only allowed together with {@link #NODE_UNPREPARE_RESOURCES}. */
  NODE_PREPARE_RESOURCES("NodePrepareResources"),
  /** Skip NodeUnprepareResources. */
  NODE_UNPREPARE_RESOURCES("NodeUnprepareResources"),
  /** Skip every node operation, those a later Kubernetes adds included. */
  ALL("*");

  private final String apiName;

  SkipNodeOperation(String apiName) {
    this.apiName = apiName;
  }

  /** The spelling used by the API, e.g. {@code NodePrepareResources}. */
  public String apiName() {
    return apiName;
  }
}
