package dev.distlock.fencing;

import java.time.Duration;

import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * {@link StalledHolderFenceContract} on a real PostgreSQL server that both JVMs connect
 * to.
 */
class PostgresStalledHolderFenceTests extends StalledHolderFenceContract {

	@RegisterExtension
	static final PostgresExtension postgres = new PostgresExtension();

	PostgresStalledHolderFenceTests() {
		super(postgres.server().jdbcUrl(), postgres.server().username(), postgres.server().password());
	}

	@Override
	protected void awaitWaitingForLock(Duration timeout) {
		postgres.awaitSessionWaitingForLock(timeout);
	}

}
