/**
 * Not API: seams the runtime's own tests use across packages (crash points). Nothing here is for
 * vendors, and it may change in any release.
 */
package io.dra4j.runtime.internal;
