/**
 * The driver's HTTP endpoint for probes, people and Prometheus scrapes.
 *
 * <p>Not API: internal to dra4j, used by its own modules only, and may change in any release.
 */
package io.dra4j.launcher.internal.status;
