package io.dra4j.runtime.internal.kubelet;

import io.dra4j.proto.health.v1.DRAResourceHealthGrpc;
import io.dra4j.proto.health.v1.NodeWatchResourcesRequest;
import io.dra4j.proto.health.v1.NodeWatchResourcesResponse;
import io.grpc.stub.StreamObserver;

/** {@code v1.DRAResourceHealth}. */
final class HealthV1Service extends DRAResourceHealthGrpc.DRAResourceHealthImplBase {
  private final HealthStreams streams;

  HealthV1Service(HealthStreams streams) {
    this.streams = streams;
  }

  @Override
  public void nodeWatchResources(
      NodeWatchResourcesRequest request, StreamObserver<NodeWatchResourcesResponse> out) {
    streams.open("v1.NodeWatchResources", out, HealthProto::toV1);
  }
}
