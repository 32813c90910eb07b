package dev.distlock.actuate;

import java.security.Principal;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.Set;

import dev.distlock.LockIntrospector;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.boot.actuate.audit.listener.AuditApplicationEvent;
import org.springframework.boot.actuate.endpoint.OperationResponseBody;
import org.springframework.boot.actuate.endpoint.SecurityContext;
import org.springframework.boot.actuate.endpoint.Show;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.actuate.endpoint.annotation.Selector;
import org.springframework.boot.actuate.endpoint.annotation.Selector.Match;
import org.springframework.boot.actuate.endpoint.annotation.WriteOperation;
import org.springframework.context.ApplicationEventPublisher;
import org.springframework.util.Assert;

/**
 * The {@link DistLockEndpoint distlock endpoint} with a write operation that releases a
 * lock whoever holds it, in any process ({@code POST /actuator/distlock/{name}}), for an
 * operator who knows its holder is gone or stuck. The former holder is not told: it
 * learns of the loss at its next renewal or release, as after any loss, and the first
 * process waiting for the lock gets it at once.
 *
 * <p>
 * Every force release is audited: logged at {@code WARN} with the lock's name, the last
 * fencing token issued for it and the caller (the principal's name, or
 * {@code anonymous}), and published as an {@link AuditApplicationEvent} of type
 * {@value #AUDIT_TYPE}, which Actuator records in the application's
 * {@code AuditEventRepository} when it has one. So is a force release that failed, such
 * as one Redis did not answer in time, since it may have released the lock all the same:
 * its event has the {@code error} instead of the outcome. The operation is secured like
 * every Actuator write operation: by {@code management.endpoint.distlock.access} and by
 * the application's security configuration.
 *
 * @since 0.1.0
 * @see LockIntrospector#forceRelease(String)
 */
@Endpoint(id = "distlock")
public class ForceReleaseDistLockEndpoint extends DistLockEndpoint {

	/** The type of the audit event of a force release. */
	public static final String AUDIT_TYPE = "DISTLOCK_FORCE_RELEASE";

	private static final Log logger = LogFactory.getLog(ForceReleaseDistLockEndpoint.class);

	private static final String ANONYMOUS = "anonymous";

	private final LockIntrospector registry;

	private final ApplicationEventPublisher eventPublisher;

	/**
	 * Create an endpoint for the given registry.
	 * @param registry the registry whose held locks are listed and which releases locks
	 * @param showValues when to show key values
	 * @param roles the roles that authorize a user to be shown key values, any
	 * authenticated user when empty
	 * @param nodes the addresses ({@code host:port}) of the registry's independent nodes,
	 * in the order of {@link LockIntrospector#pingNodes()}; empty for one deployment
	 * @param eventPublisher told of every force release as an
	 * {@link AuditApplicationEvent}
	 */
	public ForceReleaseDistLockEndpoint(LockIntrospector registry, Show showValues, Set<String> roles,
			List<String> nodes, ApplicationEventPublisher eventPublisher) {
		super(registry, showValues, roles, nodes);
		Assert.notNull(eventPublisher, "'eventPublisher' must not be null");
		this.registry = registry;
		this.eventPublisher = eventPublisher;
	}

	/**
	 * Release the lock of the given name whoever holds it, and audit the release.
	 * @param name the lock's name: the rest of the path, so that it may contain {@code /}
	 * @param securityContext the security context of the caller
	 * @return what was released
	 */
	@WriteOperation
	public ForceReleaseDescriptor forceRelease(@Selector(match = Match.ALL_REMAINING) String[] name,
			SecurityContext securityContext) {
		String lockName = String.join("/", name);
		String caller = callerOf(securityContext);
		OptionalLong lastToken;
		try {
			lastToken = this.registry.forceRelease(lockName);
		}
		catch (RuntimeException ex) {
			// Redis may have run the release before the failure: audited all the same
			logger.warn("Force release of lock '" + lockName + "' by '" + caller
					+ "' failed, and may have released it: " + ex.getMessage());
			audit(caller, Map.of("name", lockName, "error", String.valueOf(ex.getMessage())));
			throw ex;
		}
		ForceReleaseDescriptor released = ForceReleaseDescriptor.of(lockName, lastToken);
		if (released.released()) {
			logger.warn("Lock '" + lockName + "' was force-released (fencing token " + released.fencingToken()
					+ ") by '" + caller + "'");
		}
		else {
			logger.info("Force release of lock '" + lockName + "' by '" + caller + "' found nothing to release");
		}
		audit(caller, released.auditData());
		return released;
	}

	private void audit(String caller, Map<String, Object> data) {
		this.eventPublisher.publishEvent(new AuditApplicationEvent(caller, AUDIT_TYPE, data));
	}

	private static String callerOf(SecurityContext securityContext) {
		Principal principal = securityContext.getPrincipal();
		return (principal != null) ? principal.getName() : ANONYMOUS;
	}

	/**
	 * Description of a force release.
	 *
	 * @param name the lock's name
	 * @param released whether a hold of the lock was released; {@code false} when nothing
	 * held it
	 * @param fencingToken the last fencing token issued for the lock, its former
	 * holder's; {@code null} when nothing was released or the store no longer knew it
	 */
	public record ForceReleaseDescriptor(String name, boolean released,
			@Nullable Long fencingToken) implements OperationResponseBody {

		static ForceReleaseDescriptor of(String name, OptionalLong lastToken) {
			long token = lastToken.orElse(0);
			return new ForceReleaseDescriptor(name, lastToken.isPresent(), (token > 0) ? token : null);
		}

		/**
		 * Return the data of the audit event: the lock's name, whether it was released
		 * and the fencing token when known.
		 */
		Map<String, Object> auditData() {
			Map<String, Object> data = new LinkedHashMap<>();
			data.put("name", this.name);
			data.put("released", this.released);
			if (this.fencingToken != null) {
				data.put("fencingToken", this.fencingToken);
			}
			return data;
		}

	}

}
