/**
 * How the scheduler maps an extended resource name to DeviceClasses and devices, as pure functions:
 * the one place the extended-resource guard and the migration doctor take their decisions from.
 *
 * <p>Not API: internal to dra4j, used by its own modules only, and may change in any release.
 */
package io.dra4j.runtime.internal.extendedresource;
