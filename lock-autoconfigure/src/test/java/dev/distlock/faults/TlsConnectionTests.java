package dev.distlock.faults;

import java.nio.file.Path;
import java.time.Duration;

import dev.distlock.LockLease;
import dev.distlock.LockRegistry;
import dev.distlock.autoconfigure.DistLockAutoConfiguration;
import dev.distlock.testsupport.Closer;
import dev.distlock.testsupport.FreePorts;
import dev.distlock.testsupport.RedisServer;
import dev.distlock.testsupport.RedisServerBinary;
import dev.distlock.testsupport.RedisTestClient;
import dev.distlock.testsupport.TestCertificates;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.ssl.SslAutoConfiguration;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatException;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * distlock over TLS, configured the Spring Boot way: {@code spring.data.redis.ssl.*} with
 * a PEM SSL bundle that trusts a throwaway CA. Skipped when {@code openssl} is missing or
 * the {@code redis-server} was built without TLS (the embedded 6.2 binary); CI's second
 * pass runs it against Debian's redis-server 7, which has TLS.
 * <p>
 * The server keeps a plain port too, which {@link RedisServer} uses to see it is up and
 * which this test uses to look at the lock from outside; distlock talks to the TLS port.
 */
@Timeout(60)
class TlsConnectionTests {

	@TempDir
	Path directory;

	private final Closer closer = new Closer();

	@AfterEach
	void close() throws Exception {
		this.closer.close();
	}

	@Test
	void locksOverTlsConfiguredWithAnSslBundle() {
		assumeTrue(TestCertificates.opensslAvailable(), "openssl is not on the PATH");
		TestCertificates certificates = TestCertificates.create(this.directory);
		int tlsPort = FreePorts.find();
		RedisServer server = startWithTls(tlsPort, certificates);
		RedisTestClient plain = this.closer.add(RedisTestClient.connect(server.uri(), Duration.ofSeconds(5)));
		new ApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(SslAutoConfiguration.class, DataRedisAutoConfiguration.class,
					DistLockAutoConfiguration.class))
			.withPropertyValues("spring.data.redis.host=127.0.0.1", "spring.data.redis.port=" + tlsPort,
					"spring.data.redis.timeout=5s", "spring.data.redis.ssl.enabled=true",
					"spring.data.redis.ssl.bundle=redis-test",
					"spring.ssl.bundle.pem.redis-test.truststore.certificate=file:" + certificates.caCertificate())
			.run((context) -> {
				assertThat(context).hasNotFailed();
				LockRegistry registry = context.getBean(LockRegistry.class);
				try (LockLease lease = registry.acquire("tls", Duration.ZERO)) {
					assertThat(lease.fencingToken()).isPositive();
					assertThat(plain.sync().exists("lock:tls")).isOne();
				}
				assertThat(plain.sync().exists("lock:tls")).isZero();
			});
		assertThatException().as("a plain-text connection to the TLS port")
			.isThrownBy(() -> RedisTestClient.connect("redis://127.0.0.1:" + tlsPort, Duration.ofSeconds(2)).close());
	}

	private RedisServer startWithTls(int tlsPort, TestCertificates certificates) {
		try {
			return this.closer.add(RedisServer.start("--tls-port", String.valueOf(tlsPort), "--tls-cert-file",
					certificates.serverCertificate().toString(), "--tls-key-file", certificates.serverKey().toString(),
					"--tls-ca-cert-file", certificates.caCertificate().toString(), "--tls-auth-clients", "no"));
		}
		catch (IllegalStateException ex) {
			assumeTrue(false,
					() -> "redis-server " + RedisServerBinary.get().version() + " at " + RedisServerBinary.get().path()
							+ " does not support TLS: "
							+ ex.getMessage()
								.lines()
								.filter((line) -> line.contains("tls") || line.contains("TLS")
										|| line.contains("Bad directive"))
								.findFirst()
								.orElse(ex.getMessage()));
			throw ex;
		}
	}

}
