/**
 * Not API: what a running {@link io.dra4j.runtime.DraDriver} reports to whoever records it
 * (dra-launcher's metrics), and the seam through which that recorder reaches a driver's builder.
 * Nothing here is for vendors, and it may change in any release.
 */
package io.dra4j.runtime.internal.observe;
