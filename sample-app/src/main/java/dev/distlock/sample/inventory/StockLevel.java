package dev.distlock.sample.inventory;

/**
 * The stock of one SKU.
 *
 * @param sku the SKU
 * @param stock how many are left
 */
public record StockLevel(String sku, long stock) {

}
