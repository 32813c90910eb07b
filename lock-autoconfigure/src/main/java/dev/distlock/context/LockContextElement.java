package dev.distlock.context;

import java.util.List;

import dev.distlock.LockContext;
import dev.distlock.LockLease;
import kotlin.coroutines.AbstractCoroutineContextElement;
import kotlin.coroutines.CoroutineContext;
import kotlinx.coroutines.ThreadContextElement;

/**
 * Carries {@link LockContext} into a Kotlin coroutine: the leases that the thread which
 * creates the element runs under are the ones {@link LockContext} answers with on every
 * thread the coroutine runs on, and the thread's own are back when it suspends. A locked
 * {@code suspend} function runs in a coroutine with one for its call; code that starts a
 * coroutine inside a locked method of its own adds one to carry the method's leases
 * there: {@code withContext(Dispatchers.IO + LockContextElement()) { ... }}.
 *
 * @since 0.1.0
 */
public final class LockContextElement extends AbstractCoroutineContextElement
		implements ThreadContextElement<LockContext.Binding> {

	/**
	 * The key of the element in a coroutine context.
	 */
	public static final Key KEY = new Key();

	private final List<LockLease> leases;

	/**
	 * Create an element with the leases the current thread runs under, as
	 * {@link LockContext#leases()} lists them.
	 */
	public LockContextElement() {
		super(KEY);
		this.leases = LockContext.leases();
	}

	/**
	 * Return the leases the coroutine runs under.
	 * @return the leases, the innermost first; empty for none
	 */
	public List<LockLease> leases() {
		return this.leases;
	}

	/**
	 * Make the element's leases those of the thread the coroutine resumes on.
	 * @param context the coroutine's context
	 * @return the binding that gives the thread back the leases it ran under before
	 */
	@Override
	public LockContext.Binding updateThreadContext(CoroutineContext context) {
		return LockContext.carry(this.leases);
	}

	/**
	 * Give the thread back the leases it ran under before the coroutine resumed on it.
	 * @param context the coroutine's context
	 * @param previous what {@link #updateThreadContext} returned
	 */
	@Override
	public void restoreThreadContext(CoroutineContext context, LockContext.Binding previous) {
		previous.close();
	}

	/**
	 * The type of {@link LockContextElement#KEY}.
	 */
	public static final class Key implements CoroutineContext.Key<LockContextElement> {

		private Key() {
		}

	}

}
