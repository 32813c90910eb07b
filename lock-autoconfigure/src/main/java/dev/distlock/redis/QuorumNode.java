package dev.distlock.redis;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.function.Function;

/**
 * One node of a Redlock quorum: its single-node commands, sent on the caller's thread
 * once its connection is open. Until then every command is sent from a thread of the
 * quorum's own, since opening the connection blocks for as long as the node takes to
 * refuse or answer (a paused or unreachable node up to the connect timeout), and the
 * caller must hear the other nodes meanwhile.
 */
final class QuorumNode {

	private final RedisLockCommands commands;

	private final Executor connector;

	private volatile boolean connected;

	QuorumNode(RedisLockCommands commands, Executor connector) {
		this.commands = commands;
		this.connector = connector;
	}

	/**
	 * Send a command.
	 * @param command sends the command on the node's commands and returns its reply
	 * @return what the command returned; failed if it threw
	 */
	<T> CompletableFuture<T> send(Function<RedisLockCommands, T> command) {
		if (!this.connected) {
			return CompletableFuture.supplyAsync(() -> sendNow(command), this.connector);
		}
		try {
			return CompletableFuture.completedFuture(sendNow(command));
		}
		catch (RuntimeException ex) {
			return CompletableFuture.failedFuture(ex);
		}
	}

	private <T> T sendNow(Function<RedisLockCommands, T> command) {
		T sent = command.apply(this.commands);
		this.connected = true;
		return sent;
	}

	/**
	 * Close the node's connection.
	 */
	void close() {
		this.commands.close();
	}

}
