/**
 * Kubernetes-compatible evaluation of DRA CEL device selectors ({@code CELDeviceSelector} in
 * DeviceClasses and ResourceClaim requests), shared by the extended-resource migration guard and
 * the test kit's allocator.
 *
 * <p>Entry points: {@link io.dra4j.cel.CelSelectors} compiles (and caches) expressions, {@link
 * io.dra4j.cel.CompiledSelector} evaluates one against a device, {@link io.dra4j.cel.CelDevice} is
 * the device as CEL sees it, {@link io.dra4j.cel.Semver} is the runtime's one semantic-version
 * implementation.
 *
 * <p>Known differences from Kubernetes, all deliberate or forced by dev.cel 0.14.0:
 *
 * <ul>
 *   <li>The cost limit is enforced at run time per evaluation, not estimated at compile time
 *       (dev.cel has no estimator); the per-step accounting is close to, not identical with,
 *       Kubernetes' actual-cost accounting.
 *   <li>Quantities are exact decimals ({@link io.dra4j.api.device.Quantity}); Kubernetes rounds
 *       beyond three decimal places (0.1m becomes 1m) and caps magnitudes at 2^63-1.
 *   <li>{@code has(device.attributes.x)} is true for any domain, because looking up an unknown
 *       domain yields an empty map; {@code "x" in device.attributes} is false for unknown domains.
 *   <li>Kubernetes libraries not provided (using them is a compile error): lists ({@code isSorted},
 *       {@code sum}, {@code min}, {@code max}, list {@code indexOf}), regex {@code find}/{@code
 *       findAll}, URL, IP, CIDR, {@code format}, authorizer.
 * </ul>
 *
 * <p>Not API: internal to dra4j, used by its own modules only, and may change in any release.
 */
package io.dra4j.cel;
