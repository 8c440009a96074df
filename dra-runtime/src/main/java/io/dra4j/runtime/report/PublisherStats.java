package io.dra4j.runtime.report;

/**
 * Counters of the driver's ResourceSlice publisher since it started, for metrics and tests. Every
 * count is of API calls or events, never of devices.
 *
 * @param creates ResourceSlices created
 * @param updates ResourceSlices updated
 * @param deletes ResourceSlices deleted (a delete that found the slice already gone included)
 * @param failures API calls that failed (conflicts included; the client's own retries not counted)
 * @param conflicts calls that failed with 409 Conflict (a stale resourceVersion or precondition)
 * @param validationFailures invalid pools reported, once per distinct desired state of a pool
 * @param droppedFieldReports slices the API server stored with fewer fields than sent
 * @param syncs pool synchronizations run (including those that wrote nothing)
 */
public record PublisherStats(
    long creates,
    long updates,
    long deletes,
    long failures,
    long conflicts,
    long validationFailures,
    long droppedFieldReports,
    long syncs) {

  /** API writes: creates, updates and deletes. */
  public long writes() {
    return creates + updates + deletes;
  }
}
