package dev.distlock.redis;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.function.Function;

import org.jspecify.annotations.Nullable;

/**
 * One node of a Redlock quorum: its single-node commands, sent on the caller's thread
 * once its connection is open. Opening a connection blocks for as long as the node takes
 * to refuse or answer (a paused or unreachable node up to the connect timeout), and the
 * caller must hear the other nodes meanwhile: the command connection is opened from a
 * thread of the quorum's own, one attempt at a time, and the commands sent meanwhile wait
 * for it in the order they were sent (they fail with it when it fails); a subscriber's
 * connection, opened later, is opened from such a thread too.
 */
final class QuorumNode {

	private final QuorumNodeCommands commands;

	private final Executor connector;

	private volatile boolean connected;

	/** The last attempt to open the command connection; {@code null} before the first. */
	private @Nullable CompletableFuture<?> opening;

	/** The last command that waits, or waited, for the opening. */
	private CompletableFuture<?> queued = CompletableFuture.completedFuture(null);

	QuorumNode(QuorumNodeCommands commands, Executor connector) {
		this.commands = commands;
		this.connector = connector;
	}

	/**
	 * Send a command.
	 * @param command sends the command on the node's commands and returns its reply
	 * @return what the command returned; failed if it threw
	 */
	<T> CompletableFuture<T> send(Function<QuorumNodeCommands, T> command) {
		if (!this.connected) {
			CompletableFuture<T> queuedCommand = queueUntilOpen(command);
			if (queuedCommand != null) {
				return queuedCommand;
			}
		}
		try {
			return CompletableFuture.completedFuture(command.apply(this.commands));
		}
		catch (RuntimeException ex) {
			return CompletableFuture.failedFuture(ex);
		}
	}

	/**
	 * Open a connection to the node from a thread of the quorum's own.
	 * @param opening opens the connection on the node's commands and returns it
	 * @return the connection; failed if opening it threw
	 */
	<T> CompletableFuture<T> open(Function<QuorumNodeCommands, T> opening) {
		return CompletableFuture.supplyAsync(() -> opening.apply(this.commands), this.connector);
	}

	/**
	 * Queue a command behind the opening of the command connection, opening it again when
	 * the last attempt failed, unless it is open and no command waits for it.
	 * @return the queued command's reply, or {@code null} when it is to be sent now
	 */
	private synchronized <T> @Nullable CompletableFuture<T> queueUntilOpen(Function<QuorumNodeCommands, T> command) {
		CompletableFuture<?> opened = this.opening;
		if (opened != null && opened.isDone() && !opened.isCompletedExceptionally() && this.queued.isDone()) {
			this.connected = true;
			return null;
		}
		if (opened == null || opened.isCompletedExceptionally()) {
			// Sending a PING opens the connection
			opened = open(QuorumNodeCommands::ping);
			this.opening = opened;
		}
		CompletableFuture<?> open = opened;
		CompletableFuture<T> sent = this.queued.handle((reply, failure) -> open)
			.thenCompose(Function.identity())
			.thenApply((connection) -> command.apply(this.commands));
		this.queued = sent;
		return sent;
	}

	/**
	 * Close the node's connection.
	 */
	void close() {
		this.commands.close();
	}

}
