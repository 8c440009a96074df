package io.dra4j.runtime.internal.kubelet;

import io.grpc.ForwardingServerCallListener;
import io.grpc.Metadata;
import io.grpc.ServerCall;
import io.grpc.ServerCallHandler;
import io.grpc.ServerInterceptor;
import io.grpc.ServerInterceptors;
import io.grpc.ServerServiceDefinition;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;

/**
 * Answers a request whose bytes are no valid message of its method with {@code INTERNAL}, as
 * grpc-go answers the kubelet ("error unmarshalling request").
 *
 * <p>Why this exists: grpc-java parses a unary request after the interceptor chain, on its own
 * executor, where no handler can catch a parse failure; the call then ends with {@code UNKNOWN}
 * ("Application error processing RPC") and a SEVERE stack trace in the driver's log (found by
 * KubeletRequestFuzzTest). {@link #around} moves the parsing into the chain, just inside this
 * interceptor, which turns the failure into a clean answer.
 */
final class UnparseableRequests implements ServerInterceptor {
  private static final UnparseableRequests INSTANCE = new UnparseableRequests();

  private UnparseableRequests() {}

  /** {@code service} with its requests parsed inside the chain and parse failures answered. */
  static ServerServiceDefinition around(ServerServiceDefinition service) {
    return ServerInterceptors.intercept(
        ServerInterceptors.useInputStreamMessages(service), INSTANCE);
  }

  @Override
  public <Q, R> ServerCall.Listener<Q> interceptCall(
      ServerCall<Q, R> call, Metadata headers, ServerCallHandler<Q, R> next) {
    return new ForwardingServerCallListener.SimpleForwardingServerCallListener<>(
        next.startCall(call, headers)) {
      private boolean refused;

      @Override
      public void onMessage(Q message) {
        try {
          // The inner listener parses the bytes here (useInputStreamMessages); a unary handler
          // only stores the request, so any failure at this point is the parse.
          super.onMessage(message);
        } catch (StatusRuntimeException | IllegalArgumentException e) {
          refused = true;
          String method = call.getMethodDescriptor().getBareMethodName();
          Throwable reason = e.getCause() == null ? e : e.getCause();
          call.close(
              Status.INTERNAL.withDescription(
                  "the "
                      + method
                      + " request is not a valid protobuf message: "
                      + reason.getMessage()),
              new Metadata());
        }
      }

      @Override
      public void onHalfClose() {
        if (!refused) {
          super.onHalfClose();
        }
      }

      @Override
      public void onReady() {
        if (!refused) {
          super.onReady();
        }
      }
    };
  }
}
