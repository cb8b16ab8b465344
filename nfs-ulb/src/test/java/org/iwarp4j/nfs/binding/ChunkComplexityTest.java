package org.iwarp4j.nfs.binding;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.iwarp4j.nfs.binding.ChunkComplexity.Shape;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.api.Test;

/** RFC 8267 §6.4.2: chunk list complexity, ULB-R-023 and ULB-R-024. */
class ChunkComplexityTest {

    /** ULB-R-023: every shape within the minimum MUST be accepted; ULB-R-024: beyond it may be refused. */
    @ParameterizedTest(name = "PZRC {0}, {1} read chunks, {2} write chunks, {3} segments -> {4}")
    @CsvSource({
            "true,  1, 1, 16, true",
            "true,  0, 0, 1,  true",
            "false, 1, 0, 16, true",
            "false, 2, 0, 1,  false",
            "false, 0, 2, 1,  false",
            "false, 1, 1, 17, false"})
    void minimumEveryServerAccepts(boolean pzrc, int readChunks, int writeChunks, int segments, boolean permitted) {
        assertThat(ChunkComplexity.RFC_8267_MINIMUM.permits(new Shape(pzrc, readChunks, writeChunks, segments)))
                .isEqualTo(permitted);
    }

    /** ULB-R-023: a server may accept more, never less. */
    @Test
    void serverLimitsAreAtLeastTheMinimum() {
        ChunkComplexity generous = ChunkComplexity.serverLimits(4, 4, 64);
        assertThat(generous.permits(new Shape(true, 2, 3, 64))).isTrue();
        assertThat(generous.permits(new Shape(true, 2, 3, 65))).isFalse();
        assertThatThrownBy(() -> ChunkComplexity.serverLimits(1, 1, 15)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> ChunkComplexity.serverLimits(0, 1, 16)).isInstanceOf(IllegalArgumentException.class);
    }
}
