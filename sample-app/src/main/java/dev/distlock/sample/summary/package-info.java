/**
 * A stock summary that only the leader of a leadership writes, on a schedule that every
 * instance runs.
 */
@NullMarked
package dev.distlock.sample.summary;

import org.jspecify.annotations.NullMarked;
