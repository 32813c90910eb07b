package dev.distlock.sample.report;

import java.time.Instant;
import java.time.LocalDate;

/**
 * The daily stock report.
 *
 * @param date the day it reports on
 * @param skus how many SKUs are stocked
 * @param totalStock their total stock
 * @param writtenBy the instance that wrote it ({@code sample.instance-id})
 * @param writtenAt when it was written
 * @param fencingToken the fencing token of the lock it was written under
 */
public record DailyReport(LocalDate date, int skus, long totalStock, String writtenBy, Instant writtenAt,
		long fencingToken) {

}
