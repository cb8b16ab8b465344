package org.iwarp4j.mpa;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** RFC 5044 §4.5 MULPDU formulas, values worked out from the RFC's formula. MPA-R-004, MPA-R-031, MPA-R-033. */
class MulpduTest {

    @ParameterizedTest(name = "EMSS {0}")
    @CsvSource({
            "1460, 1454, 1442",
            "8960, 8954, 8882",
            "100, 128, 128",
            "64, 128, 128",
            "536, 530, 522",
            "65495, 64768, 64768"})
    void matchesTheRfcFormulaWithinItsBounds(int emss, int withoutMarkers, int withMarkers) {
        assertThat(Mulpdu.of(emss, false)).isEqualTo(withoutMarkers);
        assertThat(Mulpdu.of(emss, true)).isEqualTo(withMarkers);
    }
}
