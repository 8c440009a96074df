/**
 * The driver's Prometheus metrics: {@link io.dra4j.runtime.metrics.DriverMetrics} owns the
 * registry, records what the components report through their own narrow observer interfaces, and
 * reads the driver's state at scrape time. The only package that uses the Prometheus client.
 */
package io.dra4j.runtime.metrics;
