/**
 * The code snippets of the README and of the user guide, compiled and run on a real
 * {@code redis-server}, and the test that keeps the snippets of both equal to tagged
 * regions of test code.
 */
@NullMarked
package dev.distlock.docs;

import org.jspecify.annotations.NullMarked;
