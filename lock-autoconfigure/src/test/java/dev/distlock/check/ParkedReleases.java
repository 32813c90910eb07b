package dev.distlock.check;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * The releases of a worker JVM that wait for the nemesis: a thread about to release a
 * lock another of its threads waits for says so ({@code PARKED <id>} on standard output)
 * and waits until the nemesis lets it go ({@code release-parked <id>}), at most
 * {@link #BOUND}, so that the nemesis can change what Redis holds between the holder's
 * last look and its release.
 */
final class ParkedReleases {

	/** How long a release waits for the nemesis at most. */
	static final Duration BOUND = Duration.ofMillis(2500);

	private final Map<String, CountDownLatch> parked = new ConcurrentHashMap<>();

	/**
	 * Say that the release of the given id is parked, and wait until it is let go, or for
	 * {@link #BOUND}.
	 * @param id the id the nemesis gave the release
	 * @throws InterruptedException if interrupted while waiting
	 */
	void park(String id) throws InterruptedException {
		CountDownLatch go = new CountDownLatch(1);
		this.parked.put(id, go);
		try {
			System.out.println("PARKED " + id);
			go.await(BOUND.toMillis(), TimeUnit.MILLISECONDS);
		}
		finally {
			this.parked.remove(id);
		}
	}

	/**
	 * Let the release of the given id go, if it is still parked.
	 * @param id the id the nemesis gave the release
	 */
	void release(String id) {
		CountDownLatch go = this.parked.get(id);
		if (go != null) {
			go.countDown();
		}
	}

}
