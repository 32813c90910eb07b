package dev.distlock.docs;

import dev.distlock.DistributedLock;
import dev.distlock.LockContext;

/**
 * The README's first annotated method: an order is paid on one instance at a time, and
 * the payment carries the fencing token of the order's lock.
 */
class OrderService {

	private final Payments payments;

	OrderService(Payments payments) {
		this.payments = payments;
	}

	// tag::distributed-lock[]
	@DistributedLock(name = "order", key = "#orderId", waitTime = "2s")
	public Receipt pay(long orderId) {
		long token = LockContext.currentLease().orElseThrow().fencingToken();
		return this.payments.charge(orderId, token);
	}
	// end::distributed-lock[]

}
