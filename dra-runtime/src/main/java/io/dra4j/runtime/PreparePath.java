package io.dra4j.runtime;

import io.dra4j.runtime.errors.DriverErrorHandler;
import io.dra4j.runtime.internal.claims.ClaimListener;
import io.dra4j.runtime.internal.claims.ClaimPreparer;
import io.dra4j.runtime.internal.claims.ClaimSerializer;
import io.dra4j.runtime.internal.claims.DeviceLookup;
import io.dra4j.runtime.internal.kubelet.CallObserver;
import io.dra4j.runtime.internal.kubelet.KubeletPluginServer;
import java.io.IOException;
import org.slf4j.helpers.NOPLogger;

/**
 * The claim pipeline and the kubelet plugin server in front of it, wired one way for the driver and
 * for its warm-up: the warm-up then runs exactly the code the kubelet's calls will run.
 */
final class PreparePath {

  private PreparePath() {}

  /**
   * The claim pipeline of a driver, serialized by its own {@link ClaimSerializer} (from the pod UID
   * and the provider's {@code threadSafe()}); not yet recovered.
   *
   * @param silent log and report nothing (the warm-up's synthetic claims are noise in the driver's
   *     log and to its error handler)
   * @param listener hears what the pipeline did (the driver's metrics)
   * @param errors where the pipeline reports the errors no call returns
   */
  static ClaimPreparer preparer(
      DraDriver.Settings s,
      DeviceLookup inventory,
      boolean silent,
      ClaimListener listener,
      DriverErrorHandler errors)
      throws IOException {
    ClaimPreparer.Builder b =
        ClaimPreparer.builder()
            .driverName(s.driverName())
            .provider(s.provider())
            .kubeClient(s.kubeClient())
            .pluginDataDirectory(s.pluginDirectory())
            .cdiDirectory(s.cdiDirectory())
            .devRoot(s.devRoot())
            .deviceMetadata(s.deviceMetadata())
            .deviceMetadataVersions(s.deviceMetadataVersions())
            .inventory(inventory)
            .listener(listener)
            .serializer(ClaimSerializer.forDriver(s.provider(), s.pluginDirectory(), s.podUid()));
    if (silent) {
      b.logger(NOPLogger.NOP_LOGGER).errorHandler(error -> {});
    } else {
      b.errorHandler(errors);
    }
    return b.build();
  }

  /**
   * The kubelet plugin server in front of {@code preparer}; not yet built.
   *
   * @param observer hears how each call ended (the driver's metrics)
   */
  static KubeletPluginServer.Builder server(
      DraDriver.Settings s, ClaimPreparer preparer, boolean silent, CallObserver observer) {
    KubeletPluginServer.Builder b =
        KubeletPluginServer.builder()
            .driverName(s.driverName())
            .registrarDirectory(s.registrarDirectory())
            .pluginDataDirectory(s.pluginDirectory())
            .nodeService(preparer)
            .callObserver(observer);
    s.podUid().ifPresent(b::rollingUpdate);
    if (silent) {
      b.callLogger(NOPLogger.NOP_LOGGER);
    }
    return b;
  }
}
