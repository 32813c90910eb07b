package dev.distlock.benchmarks;

/**
 * One line of the report: one contender in one scenario.
 *
 * @param contender the contender's name
 * @param scenario the scenario's title
 * @param opsPerSecond median operations per second over the measured rounds (NaN: not a
 * throughput)
 * @param ratio median over the rounds of this contender's throughput divided by the
 * baseline's in the same round (NaN: no baseline)
 * @param p50Nanos median latency (wait for contended scenarios)
 * @param p99Nanos 99th percentile latency
 * @param operations operations measured in all
 * @param excluded whether mutual exclusion held in every round
 * @param goal the goal (docs/design.md#measurable-goals) or the rivals' figures for this
 * line, empty if none
 * @param note further measurements (fairness, commands, CPU)
 * @since 0.1.0
 */
public record Row(String contender, String scenario, double opsPerSecond, double ratio, long p50Nanos, long p99Nanos,
		long operations, boolean excluded, String goal, String note) {

	/**
	 * Return this row with more to note.
	 * @param more what to add to the note, nothing if empty
	 * @return the row with the longer note
	 */
	public Row withNote(String more) {
		if (more.isEmpty()) {
			return this;
		}
		String longer = this.note.isEmpty() ? more : this.note + "; " + more;
		return new Row(this.contender, this.scenario, this.opsPerSecond, this.ratio, this.p50Nanos, this.p99Nanos,
				this.operations, this.excluded, this.goal, longer);
	}

}
