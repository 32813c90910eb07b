/**
 * Distributed locks on Redis: the API that applications program against.
 */
@NullMarked
package dev.distlock;

import org.jspecify.annotations.NullMarked;
