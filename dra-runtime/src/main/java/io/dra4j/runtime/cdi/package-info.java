/**
 * CDI specs for prepared claims: a pure model ({@link io.dra4j.runtime.cdi.CdiSpec}, {@link
 * io.dra4j.runtime.cdi.ClaimSpec}), the version rule ({@link io.dra4j.runtime.cdi.CdiVersion}), the
 * host check of device nodes ({@link io.dra4j.runtime.cdi.DeviceNodeCheck}) and the file writer
 * ({@link io.dra4j.runtime.cdi.CdiSpecWriter}).
 *
 * <h2>Naming</h2>
 *
 * <ul>
 *   <li>Kind {@code <vendor>/<class>}, by default {@code k8s.<driverName>/claim} ({@link
 *       io.dra4j.runtime.cdi.CdiKind#forDriver}). Vendor and class must have two characters at
 *       least (one crashes the CDI library and podman); a dot in the class is rejected, because it
 *       needs CDI 0.6.0, which CDI 0.5-era runtimes cannot load.
 *   <li>One transient spec per claim: {@code <vendor>-<class>_<claimUID>.json} in the CDI
 *       directory.
 *   <li>Device names {@code <claimUID>-<device>}; a share of a multi-allocatable device adds {@code
 *       -<first 8 characters of the shareID>}; allocations that would still clash add a hash
 *       suffix. Qualified ids are {@code vendor/class=name}.
 *   <li>A device whose edits are empty gets no CDI device and no CDI id (the CDI library rejects a
 *       device without edits).
 * </ul>
 *
 * <h2>Version</h2>
 *
 * Every spec declares the lowest {@code cdiVersion} that supports what it uses: 0.3.0 base, 0.4.0
 * for a mount type, 0.5.0 for a device node {@code hostPath} or a device name starting with a digit
 * (claim UIDs often do). Older runtimes accept nothing above 0.5.0; newer libraries reject a
 * version lower than the features need. Only fields defined by the declared version are written.
 */
package io.dra4j.runtime.cdi;
