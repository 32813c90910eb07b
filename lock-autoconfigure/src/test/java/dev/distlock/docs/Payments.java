package dev.distlock.docs;

/**
 * A payment service that takes the fencing token of the lock each charge is made under.
 */
class Payments {

	/**
	 * Charge an order.
	 * @param orderId the order
	 * @param fencingToken the fencing token of the caller's lock
	 * @return the receipt
	 */
	Receipt charge(long orderId, long fencingToken) {
		return new Receipt(orderId, fencingToken);
	}

}
