/**
 * Kubernetes' CEL environment for DRA device selectors, for dra4j's own modules only: the slice
 * rules (version attributes), the core's extended-resource guard, the test kit's allocator, the
 * launcher's deviceclass command and the doctor.
 *
 * <p>dev.cel's jars split packages among themselves (dev.cel.common is in five of them), so they
 * cannot be modules: they stay on the class path, and this module reads it ({@code --add-reads
 * io.dra4j.cel=ALL-UNNAMED}, given to javac by this module's build and needed at run time only on
 * the module path).
 */
module io.dra4j.cel {
  requires transitive io.dra4j.api;
  requires com.google.common;

  exports io.dra4j.cel to
      io.dra4j.validation,
      io.dra4j.runtime,
      io.dra4j.launcher,
      io.dra4j.testkit,
      io.dra4j.doctor;
}
