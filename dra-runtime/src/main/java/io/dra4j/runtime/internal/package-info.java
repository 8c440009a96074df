/**
 * Not API: seams the runtime's own tests use across packages, and the one wording of failures
 * ({@link io.dra4j.runtime.internal.Failures}) every package shares. Nothing here is for vendors,
 * and it may change in any release.
 */
package io.dra4j.runtime.internal;
