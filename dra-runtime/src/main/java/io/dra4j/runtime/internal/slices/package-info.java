/**
 * ResourceSlice publishing: validation of a provider's pools against the API's limits, the layout
 * of a pool into slices, and the publisher that writes only what changed.
 *
 * <p>Not API: internal to dra4j, used by its own modules only, and may change in any release.
 */
package io.dra4j.runtime.internal.slices;
