package dev.distlock.redis;

import java.util.ArrayList;
import java.util.EnumMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

import dev.distlock.HoldKind;
import dev.distlock.redis.connection.LockConnection;
import dev.distlock.redis.renewal.HoldRenewer;
import dev.distlock.redis.renewal.LeaseTerms;
import dev.distlock.redis.renewal.RenewalBatch;

/**
 * Renews a registry's holds with the renew script of their {@link HoldKind}: the holds of
 * one kind and one Cluster slot are renewed by one script call, the calls of one kind
 * pipelined where the connection allows. The holds go through
 * {@link RedisLockCommands#renew}, so that a quorum renews them on each of its nodes.
 */
final class HoldRenewals implements HoldRenewer<RedisHold> {

	private final RedisLockCommands commands;

	HoldRenewals(RedisLockCommands commands) {
		this.commands = commands;
	}

	@Override
	public Object batchOf(RedisHold hold) {
		return new Batch(this.commands.batchOf(hold.id.key), hold.kind);
	}

	@Override
	public List<CompletableFuture<List<Long>>> renew(List<RenewalBatch<RedisHold>> batches) {
		return this.commands.renew(batches.stream().map(HoldRenewals::renewal).toList());
	}

	/**
	 * Return the renewal of a batch: the kind of its holds, with the lock and token of
	 * each.
	 */
	private static Renewal renewal(RenewalBatch<RedisHold> batch) {
		List<RedisHold> holds = batch.holds();
		return new Renewal(holds.get(0).kind, holds.stream().map((hold) -> hold.id).toList(),
				holds.stream().map((hold) -> hold.token).toList(), batch.terms());
	}

	@Override
	public List<Long> await(CompletableFuture<List<Long>> reply, String what) {
		return this.commands.await(reply, what);
	}

	/**
	 * Send the renew script of their kind once per batch on one connection.
	 * @param batches the locks held, and the token held under each, per batch
	 * @return per batch, in the order given, one entry per lock, 1 when renewed
	 */
	static List<CompletableFuture<List<Long>>> send(LockConnection connection, ScriptArgs args, List<Renewal> batches) {
		Map<HoldKind, Iterator<CompletableFuture<List<Long>>>> sent = new EnumMap<>(HoldKind.class);
		for (HoldKind kind : HoldKind.values()) {
			List<Renewal> ofKind = batches.stream().filter((batch) -> batch.kind() == kind).toList();
			if (!ofKind.isEmpty()) {
				List<String[]> keys = ofKind.stream().map(ScriptArgs::renewKeys).toList();
				List<String[]> arguments = ofKind.stream().map(args::renewArgs).toList();
				sent.put(kind, connection.evalEach(LuaScript.renew(kind), keys, arguments).iterator());
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

	/**
	 * Holds one script call may renew together.
	 *
	 * @param slot the group of keys, as {@link RedisLockCommands#batchOf} returns it
	 * @param kind how the holds are kept in Redis
	 */
	private record Batch(int slot, HoldKind kind) {

	}

}
