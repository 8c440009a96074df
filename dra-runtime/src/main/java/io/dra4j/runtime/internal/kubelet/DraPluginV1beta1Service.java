package io.dra4j.runtime.internal.kubelet;

import io.dra4j.proto.dra.v1beta1.DRAPluginGrpc;
import io.dra4j.proto.dra.v1beta1.NodePrepareResourcesRequest;
import io.dra4j.proto.dra.v1beta1.NodePrepareResourcesResponse;
import io.dra4j.proto.dra.v1beta1.NodeUnprepareResourcesRequest;
import io.dra4j.proto.dra.v1beta1.NodeUnprepareResourcesResponse;
import io.grpc.stub.StreamObserver;

/**
 * {@code k8s.io.kubelet.pkg.apis.dra.v1beta1.DRAPlugin}: {@link DraPluginV1Service} with its
 * messages converted ({@link OlderVersions}); v1's {@code share_id} does not exist here and is
 * dropped.
 */
final class DraPluginV1beta1Service extends DRAPluginGrpc.DRAPluginImplBase {

  private final DraPluginV1Service v1;

  DraPluginV1beta1Service(DraPluginV1Service v1) {
    this.v1 = v1;
  }

  @Override
  public void nodePrepareResources(
      NodePrepareResourcesRequest request, StreamObserver<NodePrepareResourcesResponse> out) {
    DraPluginV1Service.answer(
        out,
        () ->
            OlderVersions.convert(
                v1.prepare(
                    "v1beta1",
                    OlderVersions.convert(
                        request, io.dra4j.proto.dra.v1.NodePrepareResourcesRequest.parser())),
                NodePrepareResourcesResponse.parser()));
  }

  @Override
  public void nodeUnprepareResources(
      NodeUnprepareResourcesRequest request, StreamObserver<NodeUnprepareResourcesResponse> out) {
    DraPluginV1Service.answer(
        out,
        () ->
            OlderVersions.convert(
                v1.unprepare(
                    "v1beta1",
                    OlderVersions.convert(
                        request, io.dra4j.proto.dra.v1.NodeUnprepareResourcesRequest.parser())),
                NodeUnprepareResourcesResponse.parser()));
  }
}
