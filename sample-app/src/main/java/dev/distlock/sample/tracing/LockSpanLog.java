package dev.distlock.sample.tracing;

import java.time.Duration;
import java.util.Map;
import java.util.stream.Collectors;

import io.micrometer.tracing.exporter.FinishedSpan;
import io.micrometer.tracing.exporter.SpanReporter;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import org.springframework.stereotype.Component;

/**
 * Logs every finished span of distlock ({@code distlock.wait <name>} and
 * {@code distlock.hold <name>}) with its trace, its duration, its tags and its events.
 * Spring Boot's tracing hands finished spans to every {@link SpanReporter} bean; with
 * {@code -Ptracing} the sample has a tracer, OpenTelemetry's through Micrometer Tracing's
 * bridge, and samples every trace ({@code management.tracing.sampling}), so each lock a
 * request takes shows as a wait and a hold of that request's trace.
 */
@Component
public class LockSpanLog implements SpanReporter {

	private static final Log logger = LogFactory.getLog(LockSpanLog.class);

	@Override
	public void report(FinishedSpan span) {
		if (span.getName().startsWith("distlock.")) {
			logger.info(describe(span));
		}
	}

	private static String describe(FinishedSpan span) {
		Duration duration = Duration.between(span.getStartTimestamp(), span.getEndTimestamp());
		String tags = span.getTags()
			.entrySet()
			.stream()
			.sorted(Map.Entry.comparingByKey())
			.map((tag) -> tag.getKey() + "=" + tag.getValue())
			.collect(Collectors.joining(", ", "{", "}"));
		String events = span.getEvents()
			.stream()
			.map(Map.Entry::getValue)
			.collect(Collectors.joining(", ", " events [", "]"));
		return "Span '" + span.getName() + "' of trace " + span.getTraceId() + " (parent span " + span.getParentId()
				+ "): " + duration.toNanos() / 1000 + " µs " + tags + (span.getEvents().isEmpty() ? "" : events);
	}

}
