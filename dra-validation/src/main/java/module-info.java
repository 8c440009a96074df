/**
 * The API server's rules for ResourceSlices, for dra4j's own modules only: the core and the
 * standalone publisher check every pool against them before anything is sent, the launcher's {@code
 * deviceclass} command checks attribute names, and the test kit checks what a fake cluster
 * receives. The Go helper has no counterpart: there the API server rejects a bad slice, one at a
 * time (k8s.io/kubernetes v1.37.2 {@code pkg/apis/resource/validation}).
 */
module io.dra4j.validation {
  requires transitive io.dra4j.api;
  requires io.dra4j.kube;
  requires io.dra4j.cel;

  exports io.dra4j.validation to
      io.dra4j.runtime,
      io.dra4j.launcher,
      io.dra4j.testkit;
}
