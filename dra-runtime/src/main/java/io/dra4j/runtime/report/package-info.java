/**
 * What a running driver reports about itself: its registration with the kubelet, the slice
 * publisher's work, the claims it prepared and the health of its devices. Plain records, read
 * through {@link io.dra4j.runtime.DraDriver} and served by the status endpoint; they carry no
 * behaviour and hold no reference into the driver.
 */
package io.dra4j.runtime.report;
