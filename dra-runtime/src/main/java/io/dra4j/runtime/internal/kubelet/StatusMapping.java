package io.dra4j.runtime.internal.kubelet;

import io.grpc.Status;
import io.grpc.StatusException;
import io.grpc.StatusRuntimeException;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeoutException;

/** Turns a whole-call failure of a {@link NodeService} into a gRPC status (see its Javadoc). */
final class StatusMapping {

  private StatusMapping() {}

  static Status toStatus(Throwable failure) {
    Throwable t = unwrap(failure);
    if (t instanceof StatusException se) {
      return se.getStatus();
    }
    if (t instanceof StatusRuntimeException sre) {
      return sre.getStatus();
    }
    Status code;
    if (t instanceof InterruptedException || t instanceof CancellationException) {
      // Before IllegalStateException, which CancellationException extends.
      code = Status.CANCELLED;
    } else if (t instanceof IllegalArgumentException) {
      code = Status.INVALID_ARGUMENT;
    } else if (t instanceof IllegalStateException) {
      code = Status.FAILED_PRECONDITION;
    } else if (t instanceof UnsupportedOperationException) {
      code = Status.UNIMPLEMENTED;
    } else if (t instanceof IOException || t instanceof UncheckedIOException) {
      code = Status.UNAVAILABLE;
    } else if (t instanceof TimeoutException) {
      code = Status.DEADLINE_EXCEEDED;
    } else {
      code = Status.INTERNAL;
    }
    String message = t.getMessage();
    return code.withDescription(message == null || message.isEmpty() ? t.toString() : message)
        .withCause(t);
  }

  private static Throwable unwrap(Throwable t) {
    Throwable current = t;
    while ((current instanceof ExecutionException || current instanceof CompletionException)
        && current.getCause() != null) {
      current = current.getCause();
    }
    return current;
  }
}
