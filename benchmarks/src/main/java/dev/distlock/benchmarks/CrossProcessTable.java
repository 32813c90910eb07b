package dev.distlock.benchmarks;

import java.util.List;

/**
 * What one cross-process scenario measured: a table of its own in the report.
 *
 * @param title the scenario's title
 * @param method how it was measured, printed under the title
 * @param rows one row per contender, the naive spinner first
 * @since 0.1.0
 */
public record CrossProcessTable(String title, String method, List<CrossProcessRow> rows) {

}
