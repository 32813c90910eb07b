package dev.distlock.redis;

import java.util.function.Consumer;

import dev.distlock.LockEvent;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

/**
 * Tells a registry's event listener of its events. A listener that throws is logged: the
 * engine's thread that told it (the watchdog, a leadership's) goes on.
 */
final class LockEventPublisher {

	private static final Log logger = LogFactory.getLog(RedisLockRegistry.class);

	private final Consumer<? super LockEvent> eventListener;

	LockEventPublisher(Consumer<? super LockEvent> eventListener) {
		this.eventListener = eventListener;
	}

	void publish(LockEvent event) {
		try {
			this.eventListener.accept(event);
		}
		catch (RuntimeException ex) {
			logger.error("Lock event listener failed for lock '" + event.name() + "'", ex);
		}
	}

}
