package io.dra4j.runtime.report;

/**
 * Counters of the prepare pipeline since it was built.
 *
 * @param prepared claims prepared by calling the provider
 * @param repeated prepares answered from the checkpoint without calling the provider
 * @param prepareFailures claims whose prepare failed
 * @param unprepared claims unprepared (including claims that were not prepared)
 * @param unprepareFailures claims whose unprepare failed
 * @param rolledBack interrupted or outdated prepares rolled back (at recovery or lazily)
 * @param preparedNow claims with a checkpoint record now
 * @param inFlight claims of the prepare and unprepare calls running now
 */
public record ClaimStats(
    long prepared,
    long repeated,
    long prepareFailures,
    long unprepared,
    long unprepareFailures,
    long rolledBack,
    long preparedNow,
    long inFlight) {}
