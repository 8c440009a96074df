package io.dra4j.api.cdi;

import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * A mount to add to the container.
 *
 * @param hostPath source on the host
 * @param containerPath target in the container
 * @param type mount type such as {@code bind}; setting it needs CDI 0.4.0
 * @param options mount options such as {@code ro}, {@code nosuid}, {@code rbind}
 */
public record Mount(
    String hostPath, String containerPath, Optional<String> type, List<String> options) {
  public Mount {
    Objects.requireNonNull(hostPath, "hostPath");
    Objects.requireNonNull(containerPath, "containerPath");
    Objects.requireNonNull(type, "type");
    options = List.copyOf(options);
  }

  /** A read-only bind mount, the usual way to hand a file or library to a container. */
  public static Mount readOnlyBind(String hostPath, String containerPath) {
    return new Mount(
        hostPath,
        containerPath,
        Optional.empty(),
        List.of("ro", "nosuid", "nodev", "rbind", "rprivate"));
  }
}
