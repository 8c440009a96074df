package io.dra4j.testkit.slices;

import io.dra4j.api.device.Device;
import io.dra4j.runtime.kube.ApplyOptions;
import io.dra4j.runtime.kube.KubeClient;
import io.dra4j.runtime.kube.KubeException;
import io.dra4j.runtime.kube.KubeList;
import io.dra4j.runtime.kube.ListOptions;
import io.dra4j.runtime.kube.Preconditions;
import io.dra4j.runtime.kube.ResourceSlice;
import io.dra4j.runtime.kube.ResourceType;
import io.dra4j.runtime.kube.Watch;
import io.dra4j.runtime.kube.WatchHandler;
import java.util.List;
import java.util.Map;

/**
 * What a driver sees from an API server with the DRADeviceTaints feature gate off: slice writes
 * succeed, but the stored slices (and the objects returned) have no device taints. The fake API
 * server stores what it is sent, so the taints are removed on the way there; everything else goes
 * through unchanged over real HTTP.
 */
final class TaintsDroppingClient implements KubeClient {
  private final KubeClient delegate;

  TaintsDroppingClient(KubeClient delegate) {
    this.delegate = delegate;
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
  public <T> T get(ResourceType<T> type, String namespace, String name) throws KubeException {
    return delegate.get(type, namespace, name);
  }

  @Override
  public <T> KubeList<T> list(ResourceType<T> type, String namespace, ListOptions options)
      throws KubeException {
    return delegate.list(type, namespace, options);
  }

  @Override
  public <T> Watch watch(
      ResourceType<T> type, String namespace, ListOptions options, WatchHandler<T> handler)
      throws KubeException {
    return delegate.watch(type, namespace, options, handler);
  }

  @Override
  public <T> T create(ResourceType<T> type, T object) throws KubeException {
    return delegate.create(type, strip(type, object));
  }

  @Override
  public <T> T update(ResourceType<T> type, T object) throws KubeException {
    return delegate.update(type, strip(type, object));
  }

  @Override
  public <T> T updateStatus(ResourceType<T> type, T object) throws KubeException {
    return delegate.updateStatus(type, object);
  }

  @Override
  public void delete(
      ResourceType<?> type, String namespace, String name, Preconditions preconditions)
      throws KubeException {
    delegate.delete(type, namespace, name, preconditions);
  }

  @Override
  public <T> T apply(
      ResourceType<T> type,
      String namespace,
      String name,
      String subresource,
      Map<String, Object> patch,
      ApplyOptions options)
      throws KubeException {
    return delegate.apply(type, namespace, name, subresource, patch, options);
  }

  @Override
  public void close() {}
}
