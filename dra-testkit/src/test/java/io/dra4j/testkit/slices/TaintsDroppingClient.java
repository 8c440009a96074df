package io.dra4j.testkit.slices;

import io.dra4j.api.device.Device;
import io.dra4j.kube.ForwardingKubeClient;
import io.dra4j.kube.KubeClient;
import io.dra4j.kube.KubeException;
import io.dra4j.kube.ResourceSlice;
import io.dra4j.kube.ResourceType;
import java.util.List;

/**
 * What a driver sees from an API server with the DRADeviceTaints feature gate off: slice writes
 * succeed, but the stored slices (and the objects returned) have no device taints. The fake API
 * server stores what it is sent, so the taints are removed on the way there; everything else goes
 * through unchanged over real HTTP.
 */
final class TaintsDroppingClient extends ForwardingKubeClient {

  TaintsDroppingClient(KubeClient delegate) {
    super(delegate);
  }

  private static <T> T strip(ResourceType<T> type, T object) {
    if (type != ResourceSlice.TYPE) {
      return object;
    }
    ResourceSlice s = (ResourceSlice) object;
    List<Device> devices =
        s.spec().devices().stream().map(d -> d.toBuilder().taints(List.of()).build()).toList();
    return type.javaType().cast(s.withSpec(s.spec().withDevices(devices)));
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
