package io.dra4j.kube;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** The hints appended to a refused API call's log line and error: one wording for every caller. */
class KubeExceptionTest {
  @Test
  void aRefusalSaysWhatToCheck() {
    assertThat(new KubeException(401, "Unauthorized", "Unauthorized").whatToCheck("list nodes"))
        .isEqualTo(
            " (the API server does not accept the driver's credentials: check its kubeconfig or"
                + " ServiceAccount token)");
    assertThat(new KubeException(403, "Forbidden", "forbidden").whatToCheck("list and watch nodes"))
        .isEqualTo(
            " (the driver's ServiceAccount may not list and watch nodes: check the ClusterRole and"
                + " binding of its chart or deploy/ folder)");
  }

  @Test
  void otherFailuresAddNothing() {
    assertThat(new KubeException(500, "InternalError", "boom").whatToCheck("list nodes")).isEmpty();
    assertThat(new KubeException(0, "", "connection refused").whatToCheck("list nodes")).isEmpty();
    assertThat(new KubeException(404, "NotFound", "gone").whatToCheck("list nodes")).isEmpty();
  }
}
