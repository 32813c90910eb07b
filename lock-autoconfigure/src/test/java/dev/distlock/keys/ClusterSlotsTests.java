package dev.distlock.keys;

import java.util.List;

import io.lettuce.core.cluster.SlotHash;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests for {@link ClusterSlots}, against Lettuce's computation of Cluster slots.
 */
class ClusterSlotsTests {

	@Test
	void slotTagIsTheHashTagOrTheWholeKeyAndPutsAKeyWithoutBracesInItInTheSameSlot() {
		assertThat(ClusterSlots.slotTag("{report}:rows")).isEqualTo("report");
		assertThat(ClusterSlots.slotTag("report:rows")).isEqualTo("report:rows");
		assertThat(ClusterSlots.slotTag("{}report")).isEqualTo("{}report");
		assertThat(ClusterSlots.slotTag("a{b")).isEqualTo("a{b");
		for (String key : List.of("{report}:rows", "report:rows", "a{b", "x{y}z{w}")) {
			assertThat(SlotHash.getSlot("{" + ClusterSlots.slotTag(key) + "}lock:other")).as(key)
				.isEqualTo(SlotHash.getSlot(key));
		}
	}

	@Test
	void onlyAKeyWithTextBetweenItsFirstBracesHasAHashTag() {
		assertThat(ClusterSlots.hasHashTag("{tenant}order")).isTrue();
		assertThat(ClusterSlots.hasHashTag("order{tenant}")).isTrue();
		assertThat(ClusterSlots.hasHashTag("{}order")).isFalse();
		assertThat(ClusterSlots.hasHashTag("order{")).isFalse();
		assertThat(ClusterSlots.hasHashTag("order")).isFalse();
	}

}
