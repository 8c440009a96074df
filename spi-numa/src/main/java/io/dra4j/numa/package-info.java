/**
 * Standardized topology attributes from sysfs: {@link io.dra4j.numa.NumaEnricher} adds {@code
 * pciBusID}, {@code pcieRoot} and {@code numaNode} to any provider's PCI devices; {@link
 * io.dra4j.numa.NumaTopology} describes the host's NUMA layout for providers that place CPUs or
 * memory. Everything reads through {@link io.dra4j.numa.Sysfs}, whose root is configurable.
 */
package io.dra4j.numa;
