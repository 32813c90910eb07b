package dev.distlock.redis;

import java.util.ArrayList;
import java.util.EnumMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

import dev.distlock.HoldKind;
import dev.distlock.redis.renewal.LeaseTerms;
import dev.distlock.redis.connection.LockConnection;

/**
 * Sends the renew scripts of batches of holds: one script call per batch, the calls of
 * the batches of one kind pipelined where the connection allows.
 */
final class RenewScripts {

	private final LockConnection connection;

	private final ScriptArgs args;

	RenewScripts(LockConnection connection, ScriptArgs args) {
		this.connection = connection;
		this.args = args;
	}

	/**
	 * Send the renew script of their kind once per batch.
	 * @param batches the locks held, and the token held under each, per batch
	 * @return per batch, in the order given, one entry per lock, 1 when renewed
	 */
	List<CompletableFuture<List<Long>>> send(List<Renewal> batches) {
		Map<HoldKind, Iterator<CompletableFuture<List<Long>>>> sent = new EnumMap<>(HoldKind.class);
		for (HoldKind kind : HoldKind.values()) {
			List<String[]> keys = new ArrayList<>();
			List<String[]> args = new ArrayList<>();
			for (Renewal batch : batches) {
				if (batch.kind() == kind) {
					keys.add(ScriptArgs.renewKeys(batch));
					args.add(this.args.renewArgs(batch));
				}
			}
			if (!keys.isEmpty()) {
				sent.put(kind, this.connection.evalEach(LuaScript.renew(kind), keys, args).iterator());
			}
		}
		List<CompletableFuture<List<Long>>> replies = new ArrayList<>(batches.size());
		for (Renewal batch : batches) {
			replies.add(sent.get(batch.kind()).next());
		}
		return replies;
	}

	/**
	 * Holds of one Cluster slot and one kind with the same terms, renewed by one script
	 * call.
	 *
	 * @param kind how the holds are kept in Redis
	 * @param ids the locks held
	 * @param tokens the token held under each
	 * @param terms the lease and lock delay of the holds
	 */
	record Renewal(HoldKind kind, List<LockId> ids, List<String> tokens, LeaseTerms terms) {

	}

}
