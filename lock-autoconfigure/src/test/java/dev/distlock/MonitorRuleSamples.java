package dev.distlock;

import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Lock;
import java.util.concurrent.locks.LockSupport;
import java.util.concurrent.locks.ReentrantLock;

/**
 * Classes that break the rule of {@link BlockingInMonitorRule} on purpose, each in one
 * way, and one that keeps it while it holds monitors too. They never run: the rule's
 * tests read their bytecode.
 */
final class MonitorRuleSamples {

	private MonitorRuleSamples() {
	}

	static final class SleepsInASynchronizedMethod {

		synchronized void run() throws InterruptedException {
			Thread.sleep(1);
		}

	}

	static final class WaitsForANotification {

		private boolean done;

		synchronized void run() throws InterruptedException {
			while (!this.done) {
				wait();
			}
		}

	}

	static final class JoinsAFutureInASynchronizedBlock {

		private final Object monitor = new Object();

		Object run(CompletableFuture<Object> result) {
			synchronized (this.monitor) {
				return result.join();
			}
		}

	}

	static final class TakesALockInASynchronizedBlock {

		private final Lock lock = new ReentrantLock();

		private int count;

		void run() {
			synchronized (this) {
				this.lock.lock();
				try {
					this.count++;
				}
				finally {
					this.lock.unlock();
				}
			}
		}

	}

	static final class ParksAfterLeavingAnInnerMonitor {

		private final Object outer = new Object();

		private final Object inner = new Object();

		private int count;

		void run() {
			synchronized (this.outer) {
				synchronized (this.inner) {
					this.count++;
				}
				LockSupport.parkNanos(1);
			}
		}

	}

	static final class BlocksThroughAHelper {

		private final Semaphore permits = new Semaphore(1);

		synchronized void run() throws InterruptedException {
			takePermit();
		}

		private void takePermit() throws InterruptedException {
			this.permits.acquire();
		}

	}

	interface Gate {

		void pass() throws InterruptedException;

	}

	static final class LatchGate implements Gate {

		private final CountDownLatch open = new CountDownLatch(1);

		@Override
		public void pass() throws InterruptedException {
			this.open.await();
		}

	}

	static final class BlocksThroughAnInterface {

		void run(Gate gate) throws InterruptedException {
			synchronized (this) {
				gate.pass();
			}
		}

	}

	static final class BlocksThroughAMethodReference {

		private final Semaphore permits = new Semaphore(1);

		private final Callable<Boolean> take = this::takePermit;

		synchronized boolean run() throws Exception {
			return this.take.call();
		}

		private boolean takePermit() throws InterruptedException {
			return this.permits.tryAcquire(1, TimeUnit.SECONDS);
		}

	}

	static final class BlocksOnlyOutsideMonitors {

		private final Lock lock = new ReentrantLock();

		private int count;

		private Runnable later = () -> {
		};

		void run() throws InterruptedException {
			synchronized (this) {
				try {
					this.count = Math.addExact(this.count, 1);
				}
				catch (ArithmeticException ex) {
					this.count = 0;
				}
				if (this.lock.tryLock()) {
					this.lock.unlock();
				}
				this.later = () -> LockSupport.parkNanos(1);
			}
			Thread.sleep(1);
			this.lock.lock();
			this.lock.unlock();
			this.later.run();
		}

	}

}
