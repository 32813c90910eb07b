package dev.distlock.docs;

/**
 * The receipt of a payment made under a lock.
 *
 * @param orderId the order paid
 * @param fencingToken the fencing token of the lock the payment was made under
 */
record Receipt(long orderId, long fencingToken) {

}
