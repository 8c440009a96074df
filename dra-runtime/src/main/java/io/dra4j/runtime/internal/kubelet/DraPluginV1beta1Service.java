package io.dra4j.runtime.internal.kubelet;

import io.dra4j.api.claim.ClaimRef;
import io.dra4j.proto.dra.v1beta1.Claim;
import io.dra4j.proto.dra.v1beta1.DRAPluginGrpc;
import io.dra4j.proto.dra.v1beta1.Device;
import io.dra4j.proto.dra.v1beta1.NodePrepareResourceResponse;
import io.dra4j.proto.dra.v1beta1.NodePrepareResourcesRequest;
import io.dra4j.proto.dra.v1beta1.NodePrepareResourcesResponse;
import io.dra4j.proto.dra.v1beta1.NodeUnprepareResourceResponse;
import io.dra4j.proto.dra.v1beta1.NodeUnprepareResourcesRequest;
import io.dra4j.proto.dra.v1beta1.NodeUnprepareResourcesResponse;
import io.grpc.StatusException;
import io.grpc.stub.StreamObserver;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * {@code k8s.io.kubelet.pkg.apis.dra.v1beta1.DRAPlugin}: message conversion around {@link
 * NodeCalls}. v1beta1 has no {@code share_id}: it is left out.
 */
final class DraPluginV1beta1Service extends DRAPluginGrpc.DRAPluginImplBase {

  private final NodeCalls calls;

  DraPluginV1beta1Service(NodeCalls calls) {
    this.calls = calls;
  }

  @Override
  public void nodePrepareResources(
      NodePrepareResourcesRequest request, StreamObserver<NodePrepareResourcesResponse> out) {
    Map<String, ClaimPrepareResult> result;
    try {
      result = calls.prepare("v1beta1.NodePrepareResources", claims(request.getClaimsList()));
    } catch (StatusException e) {
      out.onError(e);
      return;
    }
    NodePrepareResourcesResponse.Builder response = NodePrepareResourcesResponse.newBuilder();
    for (Map.Entry<String, ClaimPrepareResult> e : result.entrySet()) {
      NodePrepareResourceResponse.Builder claim = NodePrepareResourceResponse.newBuilder();
      ClaimPrepareResult r = e.getValue();
      if (r.error().isPresent()) {
        claim.setError(r.error().get());
      } else {
        for (KubeletDevice d : r.devices()) {
          Device.Builder device =
              Device.newBuilder()
                  .addAllRequestNames(d.requestNames())
                  .setPoolName(d.poolName())
                  .setDeviceName(d.deviceName())
                  .addAllCdiDeviceIds(d.cdiDeviceIds());
          claim.addDevices(device);
        }
      }
      response.putClaims(e.getKey(), claim.build());
    }
    out.onNext(response.build());
    out.onCompleted();
  }

  @Override
  public void nodeUnprepareResources(
      NodeUnprepareResourcesRequest request, StreamObserver<NodeUnprepareResourcesResponse> out) {
    Map<String, Optional<String>> result;
    try {
      result = calls.unprepare("v1beta1.NodeUnprepareResources", claims(request.getClaimsList()));
    } catch (StatusException e) {
      out.onError(e);
      return;
    }
    NodeUnprepareResourcesResponse.Builder response = NodeUnprepareResourcesResponse.newBuilder();
    for (Map.Entry<String, Optional<String>> e : result.entrySet()) {
      NodeUnprepareResourceResponse.Builder claim = NodeUnprepareResourceResponse.newBuilder();
      e.getValue().ifPresent(claim::setError);
      response.putClaims(e.getKey(), claim.build());
    }
    out.onNext(response.build());
    out.onCompleted();
  }

  private static List<ClaimRef> claims(List<Claim> claims) {
    List<ClaimRef> refs = new ArrayList<>(claims.size());
    for (Claim c : claims) {
      refs.add(ClaimRef.of(c.getNamespace(), c.getName(), c.getUid()));
    }
    return refs;
  }
}
