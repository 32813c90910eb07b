package dev.distlock.sample.catalog;

import java.util.Map;

/**
 * The whole catalogue as one reader saw it.
 *
 * @param revision how many times the catalogue was replaced
 * @param prices the price of each product, in cents
 */
public record CatalogSnapshot(long revision, Map<String, Long> prices) {

}
