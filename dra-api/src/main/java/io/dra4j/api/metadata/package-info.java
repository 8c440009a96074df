/**
 * Device metadata (KEP-5304) a provider adds after prepare: the runtime writes each prepared
 * request's metadata file, which containers find under {@code
 * /var/run/kubernetes.io/dra-device-attributes/}; a provider that learns a device's attributes or
 * network data only later (after the pod's network is set up) updates the file through {@link
 * io.dra4j.api.metadata.RequestMetadataWriter}, which it gets by implementing {@link
 * io.dra4j.api.metadata.MetadataUpdating}.
 */
package io.dra4j.api.metadata;
