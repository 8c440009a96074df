package io.dra4j.testkit.slices;

import io.dra4j.kube.ForwardingKubeClient;
import io.dra4j.kube.KubeClient;
import io.dra4j.kube.KubeException;
import io.dra4j.kube.ResourceSlice;
import io.dra4j.kube.ResourceSliceSpec;
import io.dra4j.kube.ResourceType;
import java.util.List;
import java.util.Optional;
import java.util.function.UnaryOperator;

/**
 * What a driver sees from an API server with a DRA feature gate off: slice writes succeed, but the
 * stored slices (and the objects returned) lack the gated fields. The fake API server stores what
 * it is sent, so the fields are removed on the way there; everything else goes through unchanged
 * over real HTTP.
 */
final class GateOffClient extends ForwardingKubeClient {
  private final UnaryOperator<ResourceSliceSpec> drop;

  private GateOffClient(KubeClient delegate, UnaryOperator<ResourceSliceSpec> drop) {
    super(delegate);
    this.drop = drop;
  }

  /** DRADeviceTaints off: no device taints. */
  static GateOffClient deviceTaints(KubeClient delegate) {
    return new GateOffClient(
        delegate,
        spec ->
            spec.withDevices(
                spec.devices().stream()
                    .map(d -> d.toBuilder().taints(List.of()).build())
                    .toList()));
  }

  /**
   * DRAPartitionableDevicesType and DRAOptionalNodeOperations off, their default at v1.37.2: no
   * {@code partitionTypeAttribute}, no {@code skipNodeOperations}.
   */
  static GateOffClient partitionTypeAndOptionalNodeOperations(KubeClient delegate) {
    return new GateOffClient(
        delegate,
        s ->
            new ResourceSliceSpec(
                s.driver(),
                s.pool(),
                s.nodeName(),
                s.nodeSelector(),
                s.allNodes(),
                s.perDeviceNodeSelection(),
                s.devices(),
                s.sharedCounters(),
                Optional.empty(),
                List.of(),
                s.unknownFields()));
  }

  private <T> T strip(ResourceType<T> type, T object) {
    if (type != ResourceSlice.TYPE) {
      return object;
    }
    ResourceSlice s = (ResourceSlice) object;
    return type.javaType().cast(s.withSpec(drop.apply(s.spec())));
  }

  @Override
  public <T> T create(ResourceType<T> type, T object) throws KubeException {
    return super.create(type, strip(type, object));
  }

  @Override
  public <T> T update(ResourceType<T> type, T object) throws KubeException {
    return super.update(type, strip(type, object));
  }

  /** The test owns the wrapped client. */
  @Override
  public void close() {}
}
