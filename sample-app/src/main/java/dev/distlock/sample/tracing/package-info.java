/**
 * distlock's spans in the log, when a tracer is on the class path ({@code -Ptracing}).
 */
@NullMarked
package dev.distlock.sample.tracing;

import org.jspecify.annotations.NullMarked;
