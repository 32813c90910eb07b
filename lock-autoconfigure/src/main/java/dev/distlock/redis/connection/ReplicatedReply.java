package dev.distlock.redis.connection;

/**
 * The reply of a script, with how many replicas acknowledged what it wrote when
 * {@code WAIT} followed it on the same connection.
 *
 * @param reply what the script returned
 * @param replicasAcked how many replicas acknowledged what the script wrote; 0 when none
 * were asked to
 * @since 0.1.0
 */
public record ReplicatedReply(long reply, long replicasAcked) {

}
