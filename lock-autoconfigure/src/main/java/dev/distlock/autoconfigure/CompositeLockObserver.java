package dev.distlock.autoconfigure;

import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;

import dev.distlock.LeadershipGrantedEvent;
import dev.distlock.LeadershipRevokedEvent;
import dev.distlock.LockLostEvent;
import dev.distlock.LockName;
import dev.distlock.LockObserver;
import dev.distlock.LockRenewalFailedEvent;

/**
 * A {@link LockObserver} that tells several, in their order: distlock's observation
 * observer and the application's own, so that defining one turns none of the others off.
 * The waits and holds that an observer answers with {@code NONE} are left out, so
 * observers that observe nothing cost nothing per lock.
 *
 * @since 0.1.0
 */
public final class CompositeLockObserver implements LockObserver {

	private final List<LockObserver> observers;

	private CompositeLockObserver(List<LockObserver> observers) {
		this.observers = observers;
	}

	/**
	 * Return an observer that tells each of the given ones.
	 * @param observers the observers, in the order they are told
	 * @return {@link LockObserver#NONE} for none, the observer itself for one, otherwise
	 * a composite
	 */
	public static LockObserver of(List<LockObserver> observers) {
		return combined(observers, LockObserver.NONE, CompositeLockObserver::new);
	}

	@Override
	public Wait waitStarted(LockName name) {
		return combined(told(this.observers, (observer) -> observer.waitStarted(name), Wait.NONE), Wait.NONE,
				CompositeWait::new);
	}

	@Override
	public void leadershipGranted(LockName name, LeadershipGrantedEvent event) {
		this.observers.forEach((observer) -> observer.leadershipGranted(name, event));
	}

	@Override
	public void leadershipRevoked(LockName name, LeadershipRevokedEvent event) {
		this.observers.forEach((observer) -> observer.leadershipRevoked(name, event));
	}

	@Override
	public void nodeReplied(int node, NodeReply reply) {
		this.observers.forEach((observer) -> observer.nodeReplied(node, reply));
	}

	/**
	 * Tell each part and return what they answered, leaving out the answers that observe
	 * nothing.
	 */
	private static <P, A> List<A> told(List<P> parts, Function<P, A> tell, A none) {
		List<A> answers = new ArrayList<>(parts.size());
		for (P part : parts) {
			A answer = tell.apply(part);
			if (answer != none) {
				answers.add(answer);
			}
		}
		return answers;
	}

	/**
	 * Return the one of the given parts that do something, or a composite of several.
	 */
	private static <T> T combined(List<T> parts, T none, Function<List<T>, T> composite) {
		return switch (parts.size()) {
			case 0 -> none;
			case 1 -> parts.get(0);
			default -> composite.apply(List.copyOf(parts));
		};
	}

	/**
	 * The waits of one caller, one per observer.
	 */
	private record CompositeWait(List<Wait> waits) implements Wait {

		@Override
		public Hold acquired(long fencingToken) {
			return combined(told(this.waits, (wait) -> wait.acquired(fencingToken), Hold.NONE), Hold.NONE,
					CompositeHold::new);
		}

		@Override
		public void notAcquired() {
			this.waits.forEach(Wait::notAcquired);
		}

		@Override
		public void failed(Throwable failure) {
			this.waits.forEach((wait) -> wait.failed(failure));
		}

	}

	/**
	 * The holds of one hold, one per observer.
	 */
	private record CompositeHold(List<Hold> holds) implements Hold {

		@Override
		public void renewalFailed(LockRenewalFailedEvent event) {
			this.holds.forEach((hold) -> hold.renewalFailed(event));
		}

		@Override
		public void lost(LockLostEvent event) {
			this.holds.forEach((hold) -> hold.lost(event));
		}

		@Override
		public void released() {
			this.holds.forEach(Hold::released);
		}

	}

}
