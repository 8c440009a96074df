package io.dra4j.runtime.internal.slices;

import static org.assertj.core.api.Assertions.assertThat;

import io.dra4j.kube.KubeException;
import java.io.IOException;
import org.junit.jupiter.api.Test;

/** The default listener's warning for a failed publish says what to check when that is known. */
class PublishWarningTest {
  @Test
  void aRefusalNamesWhatToCheck() {
    assertThat(PublishOutlet.whatToDo(new KubeException(403, "Forbidden", "forbidden"), true))
        .contains("ClusterRole")
        .contains("ValidatingAdmissionPolicy");
    assertThat(PublishOutlet.whatToDo(new KubeException(401, "Unauthorized", "no"), true))
        .contains("credentials");
  }

  @Test
  void aPublisherWithoutANodeIsNotToldAboutTheNodePolicy() {
    assertThat(PublishOutlet.whatToDo(new KubeException(403, "Forbidden", "forbidden"), false))
        .contains("ClusterRole")
        .contains("cluster-wide")
        .doesNotContain("ValidatingAdmissionPolicy");
  }

  @Test
  void otherFailuresAddNothing() {
    assertThat(PublishOutlet.whatToDo(new KubeException(500, "InternalError", "boom"), true))
        .isEmpty();
    assertThat(PublishOutlet.whatToDo(new IOException("reset"), false)).isEmpty();
  }
}
