package io.dra4j.e2e;

import com.fasterxml.jackson.databind.JsonNode;

/** What the tests read off a pod's status. */
final class Pods {
  private Pods() {}

  /** The scheduler tried and could not place it: {@code PodScheduled=False, Unschedulable}. */
  static boolean unschedulable(JsonNode pod) {
    for (JsonNode c : pod.path("status").path("conditions")) {
      if (c.path("type").asText().equals("PodScheduled")
          && c.path("status").asText().equals("False")
          && c.path("reason").asText().equals("Unschedulable")) {
        return true;
      }
    }
    return false;
  }
}
