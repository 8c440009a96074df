/**
 * The migration doctor: the Kubernetes 1.37 extended-resource migration checklist, run read-only
 * against a live cluster ({@code Doctor}), and the {@code doctor} command of every launcher whose
 * module path or class path holds it.
 */
module io.dra4j.doctor {
  requires io.dra4j.cel;
  requires io.dra4j.kube;
  requires transitive io.dra4j.launcher;
  requires io.dra4j.runtime;

  exports io.dra4j.doctor;

  // Jackson writes the report's records (--output json) reflectively.
  opens io.dra4j.doctor to
      com.fasterxml.jackson.databind;

  provides io.dra4j.launcher.LauncherCommand with
      io.dra4j.doctor.DoctorCommand;
}
