/**
 * The resource side of fencing: checks that refuse the writes of a holder that lost its
 * lock.
 *
 * <p>
 * Every hold of a distributed lock carries a fencing token, greater than the token of
 * every earlier hold of the same lock. A holder can lose its lock without knowing it (a
 * long GC pause, a frozen VM, a network partition outlasting its lease) and write after
 * the next holder did. A {@link dev.distlock.fencing.Fence} stops such a late write: it
 * records the highest token seen for each resource and refuses a lower one with
 * {@link dev.distlock.fencing.StaleFencingTokenException}. The check has to sit where the
 * write lands, atomic with it: {@link dev.distlock.fencing.JdbcFence} records the token
 * in the transaction of a database write, so a refusal rolls the write back;
 * {@link dev.distlock.fencing.RedisFence} checks and sets a Redis value in one script.
 */
@NullMarked
package dev.distlock.fencing;

import org.jspecify.annotations.NullMarked;
