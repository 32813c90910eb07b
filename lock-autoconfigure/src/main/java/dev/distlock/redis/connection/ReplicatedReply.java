package dev.distlock.redis.connection;

/**
 * The reply of a script followed by {@code WAIT} on the same connection.
 *
 * @param reply what the script returned
 * @param replicasAcked how many replicas acknowledged what the script wrote
 * @since 0.1.0
 */
public record ReplicatedReply(long reply, long replicasAcked) {

}
