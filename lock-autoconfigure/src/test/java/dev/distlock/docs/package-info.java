/**
 * The code snippets of the README, compiled and run on a real {@code redis-server}, and
 * the test that keeps the README's snippets equal to them.
 */
@NullMarked
package dev.distlock.docs;

import org.jspecify.annotations.NullMarked;
