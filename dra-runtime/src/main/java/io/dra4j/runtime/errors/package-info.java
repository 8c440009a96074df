/**
 * Where a driver's errors go: the one {@link io.dra4j.runtime.errors.DriverErrorHandler} of a
 * driver hears every error that no caller sees (the Go helper's {@code HandleError}), and {@link
 * io.dra4j.runtime.errors.MissingSettingException} is what every builder of the runtime throws for
 * a required setting that was not given.
 *
 * <h2>Decisions</h2>
 *
 * <ul>
 *   <li>An error is {@link io.dra4j.runtime.errors.DriverError.Severity#RECOVERABLE recoverable}
 *       when the component goes on by itself (it retries, or skips what is wrong and keeps what was
 *       published before) and {@link io.dra4j.runtime.errors.DriverError.Severity#FATAL fatal} when
 *       the driver must stop. Errors a caller already receives (a failed claim goes back to the
 *       kubelet, a failed start throws) are not reported a second time.
 *   <li>The library never exits the JVM: a fatal error stops the {@code DraDriver}, and only a
 *       launcher ({@code DriverMain}, a vendor's {@code main}) turns that into an exit status.
 *   <li>The default handler logs and does nothing else, so a component built on its own (tests,
 *       tools) reports to the log exactly as one inside a driver does.
 * </ul>
 */
package io.dra4j.runtime.errors;
