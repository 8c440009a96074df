package io.dra4j.runtime.internal.kubelet;

import io.dra4j.proto.pluginregistration.InfoRequest;
import io.dra4j.proto.pluginregistration.PluginInfo;
import io.dra4j.proto.pluginregistration.RegistrationGrpc;
import io.dra4j.proto.pluginregistration.RegistrationStatusResponse;
import io.dra4j.runtime.report.RegistrationStatus;
import io.grpc.Status;
import io.grpc.stub.StreamObserver;
import java.time.Instant;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@code pluginregistration.Registration}. GetInfo answers from a message built once: the kubelet
 * gives it one second.
 */
final class RegistrationService extends RegistrationGrpc.RegistrationImplBase {

  private static final Logger LOG = LoggerFactory.getLogger(RegistrationService.class);

  private final PluginInfo info;
  private final Consumer<RegistrationStatus> recorder;
  private final Logger callLogger;

  /** {@code callLogger} takes the GetInfo lines, like the server's other kubelet calls. */
  RegistrationService(PluginInfo info, Consumer<RegistrationStatus> recorder, Logger callLogger) {
    this.info = info;
    this.recorder = recorder;
    this.callLogger = callLogger;
  }

  @Override
  public void getInfo(InfoRequest request, StreamObserver<PluginInfo> out) {
    long start = System.nanoTime();
    out.onNext(info);
    out.onCompleted();
    callLogger.info(
        "#{} GetInfo driver={}: answered in {} µs",
        RequestIds.next(),
        info.getName(),
        (System.nanoTime() - start) / 1000);
  }

  @Override
  public void notifyRegistrationStatus(
      io.dra4j.proto.pluginregistration.RegistrationStatus request,
      StreamObserver<RegistrationStatusResponse> out) {
    long id = RequestIds.next();
    RegistrationStatus status =
        new RegistrationStatus(request.getPluginRegistered(), request.getError(), Instant.now());
    if (status.registered()) {
      LOG.info(
          "#{} NotifyRegistrationStatus driver={}: registered with the kubelet (endpoint {}, services {})",
          id,
          info.getName(),
          info.getEndpoint(),
          info.getSupportedVersionsList());
    } else {
      LOG.error(
          "#{} NotifyRegistrationStatus driver={}: the kubelet rejected the registration: {}",
          id,
          info.getName(),
          status.error());
    }
    try {
      recorder.accept(status);
    } finally {
      answer(status, out);
    }
  }

  /**
   * Answers as the Go helper does ({@code
   * k8s.io/dynamic-resource-allocation@v0.37.2/kubeletplugin/registrationserver.go:56-66}): OK for
   * a registration, an error for a rejection, which grpc-go sends as UNKNOWN. Only the rejection's
   * answer may be an error: the kubelet de-registers a plugin that answers its success with one
   * ({@code k8s.io/kubernetes@v1.37.2
   * pkg/kubelet/pluginmanager/operationexecutor/operation_generator.go:137-142}), while on a
   * rejection the answer only adds to the kubelet's error text ({@code :171-189}). The driver keeps
   * running either way, so that a later registration attempt can succeed.
   */
  private static void answer(
      RegistrationStatus status, StreamObserver<RegistrationStatusResponse> out) {
    if (status.registered()) {
      out.onNext(RegistrationStatusResponse.getDefaultInstance());
      out.onCompleted();
    } else {
      out.onError(
          Status.UNKNOWN
              .withDescription("failed registration process: " + status.error())
              .asRuntimeException());
    }
  }
}
