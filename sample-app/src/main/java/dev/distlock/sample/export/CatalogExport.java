package dev.distlock.sample.export;

/**
 * One export of the catalogue.
 *
 * @param instance the instance that ran it
 * @param running how many exports ran across all instances when it started, itself
 * included
 * @param fencingToken the fencing token of its permit
 * @param csv the catalogue as CSV: one {@code product,price} line per product
 */
public record CatalogExport(String instance, long running, long fencingToken, String csv) {

}
