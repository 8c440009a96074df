package io.dra4j.runtime.internal.kubelet;

import io.dra4j.proto.health.v1alpha1.DRAResourceHealthGrpc;
import io.dra4j.proto.health.v1alpha1.NodeWatchResourcesRequest;
import io.dra4j.proto.health.v1alpha1.NodeWatchResourcesResponse;
import io.grpc.stub.StreamObserver;

/**
 * {@code v1alpha1.DRAResourceHealth}: the v1 stream ({@link HealthV1Service}) with each message
 * converted ({@link OlderVersions}); the two versions' messages are the same field for field.
 */
final class HealthV1alpha1Service extends DRAResourceHealthGrpc.DRAResourceHealthImplBase {
  private final HealthV1Service v1;

  HealthV1alpha1Service(HealthV1Service v1) {
    this.v1 = v1;
  }

  @Override
  public void nodeWatchResources(
      NodeWatchResourcesRequest request, StreamObserver<NodeWatchResourcesResponse> out) {
    v1.watch("v1alpha1", out, HealthV1alpha1Service::fromV1);
  }

  static NodeWatchResourcesResponse fromV1(io.dra4j.proto.health.v1.NodeWatchResourcesResponse v1) {
    return OlderVersions.convert(v1, NodeWatchResourcesResponse.parser());
  }
}
