package org.iwarp4j.nfs.binding;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.OptionalInt;
import org.iwarp4j.nfs.binding.WriteChunkPairing.ConsumedNothing;
import org.iwarp4j.nfs.binding.WriteChunkPairing.Disposition;
import org.iwarp4j.nfs.binding.WriteChunkPairing.Pairing;
import org.iwarp4j.nfs.binding.WriteChunkPairing.Placement;
import org.iwarp4j.nfs.binding.WriteChunkPairing.WriteChunk;
import org.junit.jupiter.api.Test;

/** RFC 8267 §6.4.1 and §6.4.3, one test per row of the Write-chunk pairing table. */
class WriteChunkPairingTest {

    private static final int PUTFH = 22;
    private static final int LOOKUP = 15;
    private static final int READ = 25;
    private static final int READLINK = 27;
    private static final int GETATTR = 9;
    private static final WriteChunk A = new WriteChunk(2, 8192);
    private static final WriteChunk B = new WriteChunk(1, 4096);
    private static final WriteChunk C = new WriteChunk(16, 65536);

    /** ULB-R-017: an empty Write list returns every eligible result inline. */
    @Test
    void emptyWriteListMeansAllInline() {
        List<Pairing> p = WriteChunkPairing.pair(List.of(PUTFH, READ, READLINK), List.of());
        assertThat(p).extracting(Pairing::disposition).containsExactly(
                Disposition.NOT_A_READ_OPERATION, Disposition.INLINE_EMPTY_WRITE_LIST, Disposition.INLINE_EMPTY_WRITE_LIST);
        assertThat(p.get(1).placement(true, ConsumedNothing.UNUSED_CHUNK)).isEqualTo(Placement.INLINE);
        assertThat(p.get(0).placement(true, ConsumedNothing.UNUSED_CHUNK)).isEqualTo(Placement.NONE);
    }

    /** ULB-R-018, RPC-R-049: the RFC 8267 §6.4.3 example, A to the first READ, B to READLINK, C to the second READ. */
    @Test
    void kthReadOperationUsesKthWriteChunk() {
        List<Integer> compound = List.of(PUTFH, LOOKUP, READ, PUTFH, LOOKUP, READLINK, PUTFH, LOOKUP, READ);
        List<Pairing> p = WriteChunkPairing.pair(compound, List.of(A, B, C));
        assertThat(p).extracting(Pairing::writeChunkIndex).containsExactly(
                OptionalInt.empty(), OptionalInt.empty(), OptionalInt.of(0),
                OptionalInt.empty(), OptionalInt.empty(), OptionalInt.of(1),
                OptionalInt.empty(), OptionalInt.empty(), OptionalInt.of(2));
        assertThat(Nfs4Binding.readOperationIndexes(compound)).containsExactly(2, 5, 8);
    }

    /** ULB-R-019: a non-empty matching chunk MUST receive the eligible item. */
    @Test
    void nonEmptyMatchingChunkReceivesTheResult() {
        Pairing read = WriteChunkPairing.pair(List.of(PUTFH, READ), List.of(A)).get(1);
        assertThat(read.disposition()).isEqualTo(Disposition.WRITE_CHUNK);
        assertThat(read.placement(true, ConsumedNothing.EMPTY_CHUNK)).isEqualTo(Placement.IN_WRITE_CHUNK);
    }

    /** ULB-R-020, RPC-R-053: an empty matching chunk (B in §6.4.3) forces that result inline. */
    @Test
    void emptyMatchingChunkForcesInline() {
        List<Integer> compound = List.of(PUTFH, LOOKUP, READ, PUTFH, LOOKUP, READLINK, PUTFH, LOOKUP, READ);
        List<Pairing> p = WriteChunkPairing.pair(compound, List.of(A, WriteChunk.empty(), C));
        assertThat(p.get(5).disposition()).isEqualTo(Disposition.INLINE_EMPTY_CHUNK);
        assertThat(p.get(5).writeChunkIndex()).hasValue(1);
        assertThat(p.get(5).placement(true, ConsumedNothing.UNUSED_CHUNK)).isEqualTo(Placement.INLINE);
        // The empty chunk still occupies its position: the next READ gets C, not B.
        assertThat(p.get(8).writeChunkIndex()).hasValue(2);
    }

    /**
     * ULB-R-021, RPC-R-051: a READ whose arm carries no data (an error) with a non-empty chunk
     * returns an empty chunk (RFC 8267) or an unused one (RFC 8166) in that position.
     */
    @Test
    void errorArmReturnsEmptyOrUnusedChunk() {
        Pairing read = WriteChunkPairing.pair(List.of(PUTFH, READ), List.of(A)).get(1);
        assertThat(read.placement(false, ConsumedNothing.EMPTY_CHUNK)).isEqualTo(Placement.EMPTY_CHUNK_RETURNED);
        assertThat(read.placement(false, ConsumedNothing.UNUSED_CHUNK)).isEqualTo(Placement.UNUSED_CHUNK_RETURNED);
    }

    /** ULB-R-022: three READs and one chunk — READ #2 and #3 inline. */
    @Test
    void moreReadsThanChunksReturnInline() {
        List<Pairing> p = WriteChunkPairing.pair(List.of(PUTFH, READ, READ, READ, GETATTR), List.of(A));
        assertThat(p).extracting(Pairing::disposition).containsExactly(
                Disposition.NOT_A_READ_OPERATION, Disposition.WRITE_CHUNK, Disposition.INLINE_NO_MATCHING_CHUNK,
                Disposition.INLINE_NO_MATCHING_CHUNK, Disposition.NOT_A_READ_OPERATION);
    }

    @Test
    void writeChunkShapeIsChecked() {
        assertThat(WriteChunk.empty().isEmpty()).isTrue();
        assertThat(new WriteChunk(1, 0).isEmpty()).isFalse();
        assertThatThrownBy(() -> new WriteChunk(0, 5)).isInstanceOf(IllegalArgumentException.class);
    }
}
