package dev.distlock.sample.summary;

import java.time.Instant;

/**
 * The stock summary.
 *
 * @param skus how many SKUs are stocked
 * @param totalStock their total stock
 * @param writtenBy the instance that wrote it ({@code sample.instance-id})
 * @param writtenAt when it was written
 * @param fencingToken the fencing token of the leadership's term it was written in
 */
public record StockSummary(int skus, long totalStock, String writtenBy, Instant writtenAt, long fencingToken) {

}
