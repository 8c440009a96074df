package io.dra4j.kube;

import java.util.Objects;

/**
 * Server-side apply options.
 *
 * @param fieldManager who owns the applied fields; drivers use their driver name
 * @param force take over fields owned by other managers
 */
public record ApplyOptions(String fieldManager, boolean force) {
  public ApplyOptions {
    Objects.requireNonNull(fieldManager, "fieldManager");
  }
}
