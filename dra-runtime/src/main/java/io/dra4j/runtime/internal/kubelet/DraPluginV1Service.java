package io.dra4j.runtime.internal.kubelet;

import io.dra4j.api.claim.ClaimRef;
import io.dra4j.kube.RequestNames;
import io.dra4j.proto.dra.v1.Claim;
import io.dra4j.proto.dra.v1.DRAPluginGrpc;
import io.dra4j.proto.dra.v1.Device;
import io.dra4j.proto.dra.v1.NodePrepareResourceResponse;
import io.dra4j.proto.dra.v1.NodePrepareResourcesRequest;
import io.dra4j.proto.dra.v1.NodePrepareResourcesResponse;
import io.dra4j.proto.dra.v1.NodeUnprepareResourceResponse;
import io.dra4j.proto.dra.v1.NodeUnprepareResourcesRequest;
import io.dra4j.proto.dra.v1.NodeUnprepareResourcesResponse;
import io.dra4j.runtime.internal.checkpoint.CheckpointDevice;
import io.dra4j.runtime.internal.claims.ClaimPrepareResult;
import io.grpc.StatusException;
import io.grpc.stub.StreamObserver;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The DRA node service, {@code k8s.io.kubelet.pkg.apis.dra.v1.DRAPlugin}: the one implementation,
 * in v1's messages, around {@link NodeCalls}. Older API versions adapt their messages to these
 * ({@link DraPluginV1beta1Service}), as the Go helper serves v1beta1 through a wrapper of its v1
 * server ({@code k8s.io/dynamic-resource-allocation@v0.37.2/kubeletplugin/draplugin.go:1065-1073},
 * {@code k8s.io/kubelet@v0.37.2/pkg/apis/dra/v1beta1/conversion.go:34-72}).
 */
final class DraPluginV1Service extends DRAPluginGrpc.DRAPluginImplBase {

  /** Produces a call's answer, or the status that fails the call. */
  @FunctionalInterface
  interface Answer<M> {
    M get() throws StatusException;
  }

  private final NodeCalls calls;

  DraPluginV1Service(NodeCalls calls) {
    this.calls = calls;
  }

  @Override
  public void nodePrepareResources(
      NodePrepareResourcesRequest request, StreamObserver<NodePrepareResourcesResponse> out) {
    answer(out, () -> prepare("v1", request));
  }

  @Override
  public void nodeUnprepareResources(
      NodeUnprepareResourcesRequest request, StreamObserver<NodeUnprepareResourcesResponse> out) {
    answer(out, () -> unprepare("v1", request));
  }

  /**
   * Serves a prepare call of any API version, given in v1's messages.
   *
   * @param version the version the kubelet called, for the log
   */
  NodePrepareResourcesResponse prepare(String version, NodePrepareResourcesRequest request)
      throws StatusException {
    Map<String, ClaimPrepareResult> result =
        calls.prepare(version + ".NodePrepareResources", claims(request.getClaimsList()));
    NodePrepareResourcesResponse.Builder response = NodePrepareResourcesResponse.newBuilder();
    for (Map.Entry<String, ClaimPrepareResult> e : result.entrySet()) {
      NodePrepareResourceResponse.Builder claim = NodePrepareResourceResponse.newBuilder();
      ClaimPrepareResult r = e.getValue();
      if (r.error().isPresent()) {
        claim.setError(r.error().get());
      } else {
        r.devices().forEach(d -> claim.addDevices(device(d)));
      }
      response.putClaims(e.getKey(), claim.build());
    }
    return response.build();
  }

  /** Serves an unprepare call of any API version, given in v1's messages. */
  NodeUnprepareResourcesResponse unprepare(String version, NodeUnprepareResourcesRequest request)
      throws StatusException {
    Map<String, Optional<String>> result =
        calls.unprepare(version + ".NodeUnprepareResources", claims(request.getClaimsList()));
    NodeUnprepareResourcesResponse.Builder response = NodeUnprepareResourcesResponse.newBuilder();
    for (Map.Entry<String, Optional<String>> e : result.entrySet()) {
      NodeUnprepareResourceResponse.Builder claim = NodeUnprepareResourceResponse.newBuilder();
      e.getValue().ifPresent(claim::setError);
      response.putClaims(e.getKey(), claim.build());
    }
    return response.build();
  }

  /**
   * A recorded device as the kubelet gets it. The kubelet matches containers by base request name,
   * so a {@code /subrequest} suffix is cut off, as the Go helper does ({@code
   * kubeletplugin/draplugin.go:1341}, {@code :1375-1381}).
   */
  static Device device(CheckpointDevice d) {
    Device.Builder device =
        Device.newBuilder()
            .addRequestNames(RequestNames.base(d.request()))
            .setPoolName(d.pool())
            .setDeviceName(d.device())
            .addAllCdiDeviceIds(d.cdiDeviceIds());
    d.shareId().ifPresent(device::setShareId);
    return device.build();
  }

  private static List<ClaimRef> claims(List<Claim> claims) {
    List<ClaimRef> refs = new ArrayList<>(claims.size());
    for (Claim c : claims) {
      refs.add(ClaimRef.of(c.getNamespace(), c.getName(), c.getUid()));
    }
    return refs;
  }

  /** Sends the answer, or fails the call with its status. */
  static <M> void answer(StreamObserver<M> out, Answer<M> answer) {
    M message;
    try {
      message = answer.get();
    } catch (StatusException e) {
      out.onError(e);
      return;
    }
    out.onNext(message);
    out.onCompleted();
  }
}
