package dev.distlock.redis.renewal;

import java.util.List;

/**
 * Holds that one command renews together: of one batch of the {@link HoldRenewer}, with
 * the same terms.
 *
 * @param <H> the type of the holds
 * @param holds the holds
 * @param terms the lease and lock delay to renew them with
 */
public record RenewalBatch<H>(List<H> holds, LeaseTerms terms) {

}
