package dev.distlock.check;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import java.util.function.Consumer;

import dev.distlock.redis.TestDriver;
import dev.distlock.testsupport.Closer;
import dev.distlock.testsupport.RedisServer;
import dev.distlock.testsupport.RivalJvm;
import dev.distlock.testsupport.TcpProxy;

/**
 * The worker JVMs ({@link CheckWorkerMain}), each in a slot with its own
 * {@link WorkerNetwork} (a {@link TcpProxy} in front of each lock node), so that faults
 * can hit one worker's network. On one Redis, each slot talks to it through its own
 * {@link TestDriver}, the drivers taken in turn from one the seed picks, so that workers
 * on every driver exclude each other; on a Redlock quorum, every slot locks on all the
 * nodes through Lettuce's own client, the only driver Redlock has. A killed worker is
 * replaced by a new incarnation on the same driver, with its own history file.
 */
final class WorkerFleet {

	private static final Duration START_BOUND = Duration.ofSeconds(90);

	private static final Duration STOP_BOUND = Duration.ofSeconds(90);

	private static final Duration STATUS_BOUND = Duration.ofSeconds(2);

	private final Closer closer;

	private final String storeUri;

	private final Path directory;

	private final long seed;

	private final int threads;

	/** Whether the workers lock on a Redlock quorum rather than one Redis. */
	private final boolean quorum;

	private final List<Slot> slots = new ArrayList<>();

	private final Map<String, Path> histories = new LinkedHashMap<>();

	private long statusRequests;

	WorkerFleet(Closer closer, List<RedisServer> lockNodes, String storeUri, Path directory, long seed, int workers,
			int threads) {
		this.closer = closer;
		this.storeUri = storeUri;
		this.directory = directory;
		this.seed = seed;
		this.threads = threads;
		this.quorum = lockNodes.size() > 1;
		TestDriver[] drivers = this.quorum ? new TestDriver[] { TestDriver.LETTUCE } : TestDriver.values();
		for (int i = 0; i < workers; i++) {
			Slot slot = new Slot(i, new WorkerNetwork(closer, lockNodes),
					drivers[(int) Math.floorMod(seed + i, (long) drivers.length)]);
			this.slots.add(slot);
			spawn(slot);
		}
	}

	int size() {
		return this.slots.size();
	}

	WorkerNetwork network(int slot) {
		return this.slots.get(slot).network;
	}

	RivalJvm jvm(int slot) {
		return this.slots.get(slot).jvm;
	}

	String incarnation(int slot) {
		return this.slots.get(slot).incarnation;
	}

	/**
	 * Return the driver each slot's workers talk to Redis through.
	 * @return the drivers by slot, such as {@code w0=LETTUCE}
	 */
	Map<String, TestDriver> drivers() {
		Map<String, TestDriver> drivers = new LinkedHashMap<>();
		this.slots.forEach((slot) -> drivers.put("w" + slot.index, slot.driver));
		return drivers;
	}

	/**
	 * Return the driver a slot's workers talk to Redis through.
	 * @param slot the slot
	 * @return the driver
	 */
	TestDriver driver(int slot) {
		return this.slots.get(slot).driver;
	}

	/**
	 * Return whether the current incarnation of a slot's worker has a lock delay.
	 * @param slot the worker's slot
	 * @return whether its holds are kept from others for a while after their lease
	 */
	boolean hasLockDelay(int slot) {
		return !CheckWorkerMain.lockDelay(workerSeed(this.slots.get(slot)), this.quorum).isZero();
	}

	/**
	 * Return every incarnation so far with its history file.
	 * @return the history files by incarnation
	 */
	Map<String, Path> histories() {
		return this.histories;
	}

	/**
	 * Kill a worker with {@code SIGKILL} and start its next incarnation.
	 * @param slot the worker's slot
	 */
	void killAndRespawn(int slot) {
		Slot killed = this.slots.get(slot);
		killed.jvm.kill();
		spawn(killed);
	}

	/**
	 * Send a command to a worker; a worker that is gone is left to the final checks.
	 * @param slot the worker's slot
	 * @param command the command
	 */
	void send(int slot, String command) {
		try {
			this.slots.get(slot).jvm.send(command);
		}
		catch (RuntimeException ex) {
			// Reported when the worker does not answer at the end
		}
	}

	/**
	 * Ask a worker what it waits for and what it holds.
	 * @param slot the worker's slot
	 * @return its answer, or empty if it is still starting or did not answer in time
	 */
	Optional<Status> status(int slot) {
		Slot asked = this.slots.get(slot);
		if (!asked.ready) {
			asked.ready = asked.jvm.lines().contains("READY");
			if (!asked.ready) {
				return Optional.empty();
			}
		}
		long request = ++this.statusRequests;
		send(slot, "status " + request);
		String answer = "STATUS " + request + " ";
		try {
			return Optional.of(Status.parse(asked.jvm.awaitLine(answer, STATUS_BOUND).substring(answer.length())));
		}
		catch (AssertionError ex) {
			return Optional.empty();
		}
	}

	/**
	 * Ask a worker how much lease the hold it keeps of one of the given names with the
	 * least left has, among those still valid ({@link KeptHolds#leaseLeft}).
	 * @param slot the worker's slot
	 * @param names the names of the holds
	 * @return the lease left in milliseconds, or empty when the worker keeps no valid one
	 * of them or did not answer in time
	 */
	OptionalLong leaseLeft(int slot, Set<String> names) {
		long request = ++this.statusRequests;
		send(slot, "lease-left " + request + " " + String.join(",", names));
		String answer = "LEASE-LEFT " + request + " ";
		try {
			long left = Long
				.parseLong(this.slots.get(slot).jvm.awaitLine(answer, STATUS_BOUND).substring(answer.length()));
			return (left >= 0) ? OptionalLong.of(left) : OptionalLong.empty();
		}
		catch (AssertionError ex) {
			return OptionalLong.empty();
		}
	}

	/**
	 * Wait for a worker to print a line that starts with the given text.
	 * @param slot the worker's slot
	 * @param prefix the start of the line
	 * @param bound how long to wait at most
	 * @return whether it printed such a line in time
	 */
	boolean awaitLine(int slot, String prefix, Duration bound) {
		try {
			this.slots.get(slot).jvm.awaitLine(prefix, bound);
			return true;
		}
		catch (AssertionError ex) {
			return false;
		}
	}

	/**
	 * Wait for every worker to be ready.
	 * @param failures told of every worker that did not start
	 */
	void awaitReady(Consumer<String> failures) {
		forEachAwaiting(null, "READY", START_BOUND, failures);
	}

	/**
	 * Stop the workers' threads and wait until each reported what it still held.
	 * @param failures told of every worker that did not answer
	 */
	void stopAll(Consumer<String> failures) {
		awaitReady(failures);
		forEachAwaiting("stop", "STOPPED", STOP_BOUND, failures);
	}

	/**
	 * Close every worker's registry, context and clients, and let it exit.
	 * @param failures told of every worker that did not answer or exit
	 */
	void closeAll(Consumer<String> failures) {
		forEachAwaiting("close", "CLOSED", STOP_BOUND, failures);
		for (Slot slot : this.slots) {
			send(slot.index, "exit");
			try {
				slot.jvm.awaitExit(STOP_BOUND);
			}
			catch (AssertionError ex) {
				failures.accept(slot.incarnation + " did not exit: " + ex.getMessage());
			}
		}
	}

	private void forEachAwaiting(String command, String answer, Duration bound, Consumer<String> failures) {
		for (Slot slot : this.slots) {
			if (command != null) {
				send(slot.index, command);
			}
			try {
				slot.jvm.awaitLine(answer, bound);
			}
			catch (AssertionError ex) {
				failures.accept(slot.incarnation + " did not answer " + answer + ": " + ex.getMessage());
			}
		}
	}

	private void spawn(Slot slot) {
		slot.incarnation = "w" + slot.index + "." + (++slot.incarnations);
		slot.ready = false;
		Path history = this.directory.resolve(slot.incarnation + ".log");
		this.histories.put(slot.incarnation, history);
		slot.jvm = this.closer.add(RivalJvm.builder(CheckWorkerMain.class)
			.jvmOptions("-Xmx192m", "-XX:TieredStopAtLevel=1")
			.args(slot.network.uris(), this.storeUri, history.toString(), slot.incarnation,
					Long.toString(workerSeed(slot)), Integer.toString(this.threads), slot.driver.name())
			.start());
	}

	private long workerSeed(Slot slot) {
		return this.seed + 7919L * slot.index + slot.incarnations;
	}

	/**
	 * What a worker said it waits for in Redis (being acquired by one of its threads
	 * while none holds it), what it holds, what it holds while another of its threads
	 * waits for it, what it keeps a while longer, which of those it keeps as read shares
	 * or permits, and what it is about to release.
	 *
	 * @param waiting the names of the locks it waits for
	 * @param holding the names of the locks it holds
	 * @param queued the names of the locks it holds with a thread of its own waiting
	 * @param kept the names of the locks, read/write locks and semaphores it keeps for at
	 * least {@link CheckWorkerMain#KEPT_AHEAD} of its running
	 * @param shares the names of the read/write locks it keeps a valid read share of, and
	 * the semaphores it keeps a valid permit of, for that long: a read/write lock's name
	 * in {@code kept} may be kept by a write hold
	 * @param ending the names of those it keeps for less than
	 * {@link CheckWorkerMain#ENDING}, about to be released
	 */
	record Status(Set<String> waiting, Set<String> holding, Set<String> queued, Set<String> kept, Set<String> shares,
			Set<String> ending) {

		/**
		 * Read a worker's answer,
		 * {@code waiting=<names> holding=<names> queued=<names> kept=<names> shares=<names> ending=<names>}.
		 * @param answer the answer
		 * @return the status
		 */
		static Status parse(String answer) {
			String[] fields = answer.split(" ");
			return new Status(names(fields[0]), names(fields[1]), names(fields[2]), names(fields[3]), names(fields[4]),
					names(fields[5]));
		}

		private static Set<String> names(String field) {
			String names = field.substring(field.indexOf('=') + 1);
			return names.isEmpty() ? Set.of() : Set.of(names.split(","));
		}

	}

	/**
	 * One worker's place: its network, its driver and its current JVM.
	 */
	private static final class Slot {

		final int index;

		final WorkerNetwork network;

		final TestDriver driver;

		RivalJvm jvm;

		String incarnation = "";

		int incarnations;

		/** Whether the current incarnation printed {@code READY}. */
		boolean ready;

		Slot(int index, WorkerNetwork network, TestDriver driver) {
			this.index = index;
			this.network = network;
			this.driver = driver;
		}

	}

}
