package io.dra4j.runtime.internal.kubelet;

import io.dra4j.proto.health.v1.DRAResourceHealthGrpc;
import io.dra4j.proto.health.v1.NodeWatchResourcesRequest;
import io.dra4j.proto.health.v1.NodeWatchResourcesResponse;
import io.grpc.stub.StreamObserver;
import java.util.function.Function;

/**
 * {@code v1.DRAResourceHealth}: the one implementation of the health stream, in v1's messages,
 * around {@link HealthStreams}. Older API versions convert its messages ({@link
 * HealthV1alpha1Service}), as the Go helper serves v1alpha1 through a wrapper of its v1 server
 * ({@code k8s.io/dynamic-resource-allocation@v0.37.2/kubeletplugin/draplugin.go:1075-1088}).
 */
final class HealthV1Service extends DRAResourceHealthGrpc.DRAResourceHealthImplBase {
  private final HealthStreams streams;

  HealthV1Service(HealthStreams streams) {
    this.streams = streams;
  }

  @Override
  public void nodeWatchResources(
      NodeWatchResourcesRequest request, StreamObserver<NodeWatchResourcesResponse> out) {
    watch("v1", out, Function.identity());
  }

  /**
   * Serves a health stream of any API version, each v1 message converted by {@code fromV1}.
   *
   * @param version the version the kubelet called, for the log
   */
  <M> void watch(
      String version, StreamObserver<M> out, Function<NodeWatchResourcesResponse, M> fromV1) {
    streams.open(version + ".NodeWatchResources", out, s -> fromV1.apply(HealthProto.toV1(s)));
  }
}
