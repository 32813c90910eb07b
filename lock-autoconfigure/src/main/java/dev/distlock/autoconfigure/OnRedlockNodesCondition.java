package dev.distlock.autoconfigure;

import java.util.List;

import org.springframework.boot.autoconfigure.condition.ConditionMessage;
import org.springframework.boot.autoconfigure.condition.ConditionOutcome;
import org.springframework.boot.autoconfigure.condition.SpringBootCondition;
import org.springframework.boot.context.properties.bind.Bindable;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.context.annotation.ConditionContext;
import org.springframework.core.type.AnnotatedTypeMetadata;

/**
 * Matches when {@code distlock.redlock.nodes} names nodes, in any of the forms Boot binds
 * a list from (a comma-separated value or indexed entries), so that the registry locks on
 * a quorum.
 */
final class OnRedlockNodesCondition extends SpringBootCondition {

	private static final String PROPERTY = "distlock.redlock.nodes";

	@Override
	public ConditionOutcome getMatchOutcome(ConditionContext context, AnnotatedTypeMetadata metadata) {
		ConditionMessage.Builder message = ConditionMessage.forCondition("Redlock nodes");
		List<String> nodes = Binder.get(context.getEnvironment())
			.bind(PROPERTY, Bindable.listOf(String.class))
			.orElse(List.of());
		return nodes.isEmpty() ? ConditionOutcome.noMatch(message.didNotFind("property").items(PROPERTY))
				: ConditionOutcome.match(message.found("property").items(PROPERTY));
	}

}
