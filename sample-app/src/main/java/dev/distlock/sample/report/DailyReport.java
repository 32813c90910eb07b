package dev.distlock.sample.report;

import java.time.Instant;
import java.time.LocalDate;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The daily stock report.
 *
 * @param date the day it reports on
 * @param skus how many SKUs are stocked
 * @param totalStock their total stock
 * @param writtenBy the instance that wrote it ({@code sample.instance-id})
 * @param writtenAt when it was written
 * @param fencingToken the fencing token of the lock it was written under
 */
public record DailyReport(LocalDate date, int skus, long totalStock, String writtenBy, Instant writtenAt,
		long fencingToken) {

	static DailyReport of(FencedStore.Entry entry) {
		Map<String, String> fields = entry.fields();
		return new DailyReport(LocalDate.parse(fields.get("date")), Integer.parseInt(fields.get("skus")),
				Long.parseLong(fields.get("totalStock")), fields.get("writtenBy"),
				Instant.parse(fields.get("writtenAt")), entry.fencingToken());
	}

	Map<String, String> fields() {
		Map<String, String> fields = new LinkedHashMap<>();
		fields.put("date", this.date.toString());
		fields.put("skus", Integer.toString(this.skus));
		fields.put("totalStock", Long.toString(this.totalStock));
		fields.put("writtenBy", this.writtenBy);
		fields.put("writtenAt", this.writtenAt.toString());
		return fields;
	}

}
