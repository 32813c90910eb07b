package dev.distlock.benchmarks;

/**
 * One contender in one cross-process scenario ({@link CrossProcessScenario}).
 *
 * @param contender the contender's name
 * @param opsPerSecond median acquisitions per second of all JVMs together over the
 * measured rounds
 * @param ratio median over the rounds of this contender's acquisitions per second divided
 * by the naive spinner's in the same round
 * @param p50Nanos median wait, from asking for the lock to holding it
 * @param p99Nanos 99th percentile wait
 * @param maxNanos longest wait
 * @param leastShare the smallest share of the acquisitions that any JVM took in any
 * measured round
 * @param medianLeastShare the median over the measured rounds of each round's smallest
 * share
 * @param commandsPerAcquisition Redis commands per acquisition over the measured rounds
 * ({@code INFO commandstats}, which counts the commands that scripts run as well as the
 * script calls)
 * @param requestsPerAcquisition requests per acquisition, a script call counted once, in
 * a round of its own watched by {@code MONITOR} ({@link MonitoredRequests})
 * @param publishesPerRelease {@code PUBLISH} and {@code SPUBLISH} calls, by clients or
 * scripts, per release (one per acquisition) over the measured rounds
 * @param acquisitions acquisitions measured in all
 * @param excluded whether no update of the counter shared by the JVMs was lost in any
 * round
 * @param goal the goal (docs/design.md#measurable-goals) or the rivals' figures, empty if
 * none
 * @param verdicts each figure against distlock's goal, met or missed; empty if none
 * @since 0.1.0
 */
public record CrossProcessRow(String contender, double opsPerSecond, double ratio, long p50Nanos, long p99Nanos,
		long maxNanos, double leastShare, double medianLeastShare, double commandsPerAcquisition,
		double requestsPerAcquisition, double publishesPerRelease, long acquisitions, boolean excluded, String goal,
		String verdicts) {

}
