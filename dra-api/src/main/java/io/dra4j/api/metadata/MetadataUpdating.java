package io.dra4j.api.metadata;

/**
 * Capability: the provider updates the device metadata of prepared claims after prepare, for
 * attributes or network data it learns only later. The runtime hands it the writer once, before the
 * kubelet can call {@code prepare}.
 */
public interface MetadataUpdating {

  /** Keeps the writer for later calls; return promptly. */
  void useMetadataWriter(RequestMetadataWriter writer);
}
