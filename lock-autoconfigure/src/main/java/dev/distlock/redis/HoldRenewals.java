package dev.distlock.redis;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

import dev.distlock.HoldKind;
import dev.distlock.redis.renewal.HoldRenewer;
import dev.distlock.redis.renewal.RenewalBatch;

/**
 * Renews a registry's holds with the renew script of their {@link HoldKind}: the holds of
 * one kind and one Cluster slot are renewed by one script call.
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
		List<RenewScripts.Renewal> renewals = new ArrayList<>(batches.size());
		for (RenewalBatch<RedisHold> batch : batches) {
			List<LockId> ids = new ArrayList<>(batch.holds().size());
			List<String> tokens = new ArrayList<>(batch.holds().size());
			for (RedisHold hold : batch.holds()) {
				ids.add(hold.id);
				tokens.add(hold.token);
			}
			renewals.add(new RenewScripts.Renewal(batch.holds().get(0).kind, ids, tokens, batch.terms()));
		}
		return this.commands.renew(renewals);
	}

	@Override
	public List<Long> await(CompletableFuture<List<Long>> reply, String what) {
		return this.commands.await(reply, what);
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
