package dev.distlock.check;

import java.io.StringReader;
import java.util.List;

import javax.xml.parsers.DocumentBuilderFactory;

import org.junit.jupiter.api.Test;
import org.w3c.dom.Document;
import org.xml.sax.InputSource;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The figure of a mutation run: an SVG document with the score, the checker's throughput,
 * and one line per mutant.
 */
class MutationScoreFigureTests {

	@Test
	void figureShowsTheScoreTheThroughputAndEveryMutantOnEverySeed() throws Exception {
		String svg = MutationScoreFigure.svg(
				List.of(new MutationScoreFigure.MutantResult("acquire-without-nx",
						List.of(new MutationScoreFigure.SeedResult(6, true, 84, "overlap=659"),
								new MutationScoreFigure.SeedResult(9, true, 90, "overlap=12"))),
						new MutationScoreFigure.MutantResult("transfer-without-token",
								List.of(new MutationScoreFigure.SeedResult(6, false, 91, ""),
										new MutationScoreFigure.SeedResult(9, true, 94, "overlap=1")))),
				new MutationScoreFigure.Throughput(2, 89.5, 843.0, 0), "60 s on seeds [6, 9] per mutant");
		Document document = DocumentBuilderFactory.newInstance()
			.newDocumentBuilder()
			.parse(new InputSource(new StringReader(svg)));
		assertThat(document.getDocumentElement().getTagName()).isEqualTo("svg");
		assertThat(document.getDocumentElement().getTextContent()).contains("1 of 2 caught on every seed",
				"90 faults and 843 operations a minute", "acquire-without-nx", "seed 6, 84 s: overlap=659",
				"seed 9, 90 s: overlap=12", "transfer-without-token", "seed 6, 91 s: missed",
				"seed 9, 94 s: overlap=1");
	}

}
