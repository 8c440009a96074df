package io.dra4j.runtime.internal.kubelet;

import io.dra4j.proto.health.v1alpha1.DRAResourceHealthGrpc;
import io.dra4j.proto.health.v1alpha1.NodeWatchResourcesRequest;
import io.dra4j.proto.health.v1alpha1.NodeWatchResourcesResponse;
import io.grpc.stub.StreamObserver;

/** {@code v1alpha1.DRAResourceHealth}: the same streams as v1, in the older package. */
final class HealthV1alpha1Service extends DRAResourceHealthGrpc.DRAResourceHealthImplBase {
  private final HealthStreams streams;

  HealthV1alpha1Service(HealthStreams streams) {
    this.streams = streams;
  }

  @Override
  public void nodeWatchResources(
      NodeWatchResourcesRequest request, StreamObserver<NodeWatchResourcesResponse> out) {
    streams.open("v1alpha1.NodeWatchResources", out, HealthProto::toV1alpha1);
  }
}
