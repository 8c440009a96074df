package io.dra4j.testkit.kubelet;

import io.dra4j.runtime.kubelet.KubeletPluginServer;
import io.grpc.ForwardingServerCallListener;
import io.grpc.Metadata;
import io.grpc.ServerCall;
import io.grpc.ServerCallHandler;
import io.grpc.ServerInterceptor;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * The second driver process of {@link CrossProcessSerializationTest}: a rolling-update server that
 * shares the plugin data directory (hence {@code serialize.lock}) with the test's own server. Its
 * prepare appends "child enter" / "child exit" to a log file; an interceptor appends "child
 * requested" when a prepare arrives, before the server takes the lock. Runs until stdin closes.
 *
 * <p>Arguments: registry dir, plugin data dir, pod UID, log file.
 */
public final class SerializeChild {

  static final String DRIVER = "serial.example.com";

  private SerializeChild() {}

  public static void main(String[] args) throws Exception {
    Path log = Path.of(args[3]);
    ScriptedNodeService service = new ScriptedNodeService();
    service.prepare =
        (claims, call) -> {
          append(log, "child enter");
          append(log, "child exit");
          return ScriptedNodeService.oneDeviceEach(claims, call);
        };
    ServerInterceptor requested =
        new ServerInterceptor() {
          @Override
          public <Q, R> ServerCall.Listener<Q> interceptCall(
              ServerCall<Q, R> call, Metadata headers, ServerCallHandler<Q, R> next) {
            if (!call.getMethodDescriptor().getBareMethodName().equals("NodePrepareResources")) {
              return next.startCall(call, headers);
            }
            return new ForwardingServerCallListener.SimpleForwardingServerCallListener<>(
                next.startCall(call, headers)) {
              @Override
              public void onHalfClose() {
                append(log, "child requested");
                super.onHalfClose();
              }
            };
          }
        };
    try (KubeletPluginServer server =
        KubeletPluginServer.builder()
            .driverName(DRIVER)
            .registrarDirectory(Path.of(args[0]))
            .pluginDataDirectory(Path.of(args[1]))
            .rollingUpdate(args[2])
            .nodeService(service)
            .interceptor(requested)
            .start()) {
      System.out.println("READY " + server.registrationSocket());
      System.out.flush();
      while (System.in.read() >= 0) {
        // wait for the parent to close stdin (or die)
      }
    }
  }

  static void append(Path log, String line) {
    try {
      Files.writeString(
          log,
          line + "\n",
          StandardCharsets.UTF_8,
          StandardOpenOption.CREATE,
          StandardOpenOption.WRITE,
          StandardOpenOption.APPEND);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
