package io.dra4j.runtime.internal.kubelet;

import static org.assertj.core.api.Assertions.assertThat;

import io.grpc.Status;
import java.io.IOException;
import java.util.concurrent.CancellationException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeoutException;
import org.junit.jupiter.api.Test;

class StatusMappingTest {

  @Test
  void codesFollowTheExceptionTypeAndKeepTheMessage() {
    assertThat(StatusMapping.toStatus(new IllegalArgumentException("bad claim")))
        .satisfies(
            s -> {
              assertThat(s.getCode()).isEqualTo(Status.Code.INVALID_ARGUMENT);
              assertThat(s.getDescription()).isEqualTo("bad claim");
            });
    assertThat(StatusMapping.toStatus(new IllegalStateException("not allocated")).getCode())
        .isEqualTo(Status.Code.FAILED_PRECONDITION);
    assertThat(StatusMapping.toStatus(new IOException("api server down")).getCode())
        .isEqualTo(Status.Code.UNAVAILABLE);
    assertThat(StatusMapping.toStatus(new TimeoutException("slow")).getCode())
        .isEqualTo(Status.Code.DEADLINE_EXCEEDED);
    assertThat(StatusMapping.toStatus(new InterruptedException("stop")).getCode())
        .isEqualTo(Status.Code.CANCELLED);
    // A CancellationException is an IllegalStateException too: the kubelet gave up, nothing failed.
    assertThat(StatusMapping.toStatus(new CancellationException("gave up")).getCode())
        .isEqualTo(Status.Code.CANCELLED);
    assertThat(StatusMapping.toStatus(new UnsupportedOperationException("no")).getCode())
        .isEqualTo(Status.Code.UNIMPLEMENTED);
    assertThat(StatusMapping.toStatus(new NullPointerException()).getCode())
        .isEqualTo(Status.Code.INTERNAL);
    assertThat(StatusMapping.toStatus(new NullPointerException()).getDescription())
        .isEqualTo("java.lang.NullPointerException");
    assertThat(
            StatusMapping.toStatus(
                    Status.RESOURCE_EXHAUSTED.withDescription("full").asRuntimeException())
                .getCode())
        .isEqualTo(Status.Code.RESOURCE_EXHAUSTED);
    assertThat(StatusMapping.toStatus(new ExecutionException(new IOException("wrapped"))))
        .satisfies(
            s -> {
              assertThat(s.getCode()).isEqualTo(Status.Code.UNAVAILABLE);
              assertThat(s.getDescription()).isEqualTo("wrapped");
            });
  }
}
