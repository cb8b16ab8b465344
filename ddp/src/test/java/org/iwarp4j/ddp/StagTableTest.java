package org.iwarp4j.ddp;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.ByteBufUtil;
import java.util.EnumSet;
import java.util.HashSet;
import java.util.Set;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * RFC 5041 §7.1 tagged checks, §8.2 association and §8.3 STag management, on buffers that are
 * slices of one bigger buffer with guard octets around them: after every rejected placement the
 * guards and the buffer itself are unchanged (§8.3.1 #3, DDP-R-049 "memory beyond the failing
 * check is untouched").
 */
class StagTableTest {

    private static final byte GUARD = (byte) 0xA5;
    private static final int PD = 7;
    private static final long BASE = 0x00007F0000001000L;
    private static final Set<Access> WRITE = EnumSet.of(Access.REMOTE_WRITE);

    private final StagTable table = new StagTable(64);
    private ByteBuf arena;
    private ByteBuf regionMemory;

    @BeforeEach
    void arena() {
        // 64 guard octets | 256-octet region | 64 guard octets
        byte[] guards = new byte[384];
        java.util.Arrays.fill(guards, GUARD);
        arena = Bufs.buf(guards);
        regionMemory = arena.slice(64, 256);
        regionMemory.setZero(0, 256);
    }

    @AfterEach
    void release() {
        arena.release();
    }

    private byte[] arenaBytes() {
        return Bufs.peek(arena);
    }

    /** Places {@code length} octets and expects {@code expected}; nothing in the arena may change. */
    private DdpException rejected(int stag, int pd, long stream, Access access, long to, int length, DdpError expected,
                                  StagCheck check) {
        byte[] before = arenaBytes();
        ByteBuf payload = Bufs.buf(Bufs.pattern(length, 1));
        DdpException e;
        try {
            e = catchThrowableOfType(DdpException.class, () -> table.place(stag, pd, stream, access, to, payload));
            assertThat(payload.readerIndex()).isZero();
        } finally {
            payload.release();
        }
        assertThat(e).as("placement must fail").isNotNull();
        assertThat(e.error()).isEqualTo(expected);
        assertThat(e.stagCheck()).isEqualTo(check);
        assertThat(table.check(stag, pd, stream, access, to, length)).isEqualTo(check);
        assertThat(arenaBytes()).as("guards and buffer untouched").isEqualTo(before);
        return e;
    }

    private void placed(int stag, long to, int length) throws DdpException {
        ByteBuf payload = Bufs.buf(Bufs.pattern(length, 1));
        try {
            table.place(stag, PD, 1, Access.REMOTE_WRITE, to, payload);
        } finally {
            payload.release();
        }
    }

    private void assertGuardsIntact() {
        byte[] a = arenaBytes();
        for (int i = 0; i < 64; i++) {
            assertThat(a[i]).isEqualTo(GUARD);
            assertThat(a[320 + i]).isEqualTo(GUARD);
        }
    }

    @Test
    void stagLayoutIsIndexAndKey() {
        // siw layout: index = STag >> 8 (siw_mem_id2obj), key = low 8 bits; index 0 (STag 0..255) never used.
        Set<Integer> indexes = new HashSet<>();
        for (int i = 0; i < 64; i++) {
            TaggedBuffer b = table.register(PD, BASE, 256, WRITE, regionMemory);
            int index = b.stag() >>> 8;
            assertThat(index).isBetween(1, 64);
            assertThat(indexes.add(index)).isTrue();
            assertThat(table.lookup(b.stag())).isSameAs(b);
        }
        assertThat(table.size()).isEqualTo(64);
        assertThatThrownBy(() -> table.register(PD, BASE, 256, WRITE, regionMemory))
                .as("bounded: a full table refuses").isInstanceOf(IllegalStateException.class);
    }

    @Test
    void validPlacementWritesExactlyTheAddressedOctets() throws Exception {
        // DDP-R-022 (start at base + 3), DDP-R-028 (DK places valid segments); exactly at the end is fine.
        int stag = table.register(PD, BASE, 256, WRITE, regionMemory).stag();
        placed(stag, BASE + 3, 10);
        placed(stag, BASE + 250, 6);
        byte[] region = Bufs.peek(regionMemory);
        byte[] expected = new byte[256];
        System.arraycopy(Bufs.pattern(10, 1), 0, expected, 3, 10);
        System.arraycopy(Bufs.pattern(6, 1), 0, expected, 250, 6);
        assertThat(region).isEqualTo(expected);
        assertThat(regionMemory.readerIndex()).isZero();
        assertThat(regionMemory.writerIndex()).as("placement moves no index").isEqualTo(256);
        assertGuardsIntact();
    }

    @Test
    void unknownStagIsInvalid() {
        // DDP-R-048 #1: unknown STag -> 0x1/0x00.
        int stag = table.register(PD, BASE, 256, WRITE, regionMemory).stag();
        rejected(stag ^ 0x100, PD, 1, Access.REMOTE_WRITE, BASE, 8, DdpError.INVALID_STAG, StagCheck.INVALID_STAG);
        rejected(stag ^ 0x01, PD, 1, Access.REMOTE_WRITE, BASE, 8, DdpError.INVALID_STAG, StagCheck.INVALID_STAG);
        rejected(0, PD, 1, Access.REMOTE_WRITE, BASE, 8, DdpError.INVALID_STAG, StagCheck.INVALID_STAG);
        rejected(0xFFFFFFFF, PD, 1, Access.REMOTE_WRITE, BASE, 8, DdpError.INVALID_STAG, StagCheck.INVALID_STAG);
    }

    @Test
    void anotherProtectionDomainIsNotAssociated() {
        // DDP-R-051, §8.2 PD association, RDMAP-R-038: MR in PD 7 targeted from a stream of PD 8 -> 0x1/0x02.
        int stag = table.register(PD, BASE, 256, WRITE, regionMemory).stag();
        rejected(stag, PD + 1, 1, Access.REMOTE_WRITE, BASE, 8, DdpError.STAG_NOT_ASSOCIATED, StagCheck.NOT_ASSOCIATED);
    }

    @Test
    void streamScopedStagsServeOnlyTheirStream() throws Exception {
        // DDP-R-052 / §8.2 stream association, §8.3.1 #2: another stream of the same PD -> 0x1/0x02.
        long mine = table.newStreamId();
        long other = table.newStreamId();
        assertThat(mine).isNotEqualTo(other).isPositive();
        int stag = table.register(PD, mine, BASE, 256, WRITE, regionMemory).stag();
        rejected(stag, PD, other, Access.REMOTE_WRITE, BASE, 8, DdpError.STAG_NOT_ASSOCIATED, StagCheck.NOT_ASSOCIATED);
        ByteBuf payload = Bufs.buf(new byte[] {1, 2, 3});
        table.place(stag, PD, mine, Access.REMOTE_WRITE, BASE, payload);
        payload.release();
        assertThat(regionMemory.getByte(2)).isEqualTo((byte) 3);
        assertThat(table.lookup(stag).streamId()).isEqualTo(mine);
    }

    @Test
    void missingAccessRightIsReportedAsInvalidStag() throws Exception {
        // DDP-R-054 / RDMAP-R-009: a read-only buffer written -> rejected, 0x1/0x00 (siw_tagged_error: RFC 5041
        // has no access code). The finer reason stays visible for RDMAP's Read Request codes.
        int readOnly = table.register(PD, BASE, 256, EnumSet.of(Access.REMOTE_READ), regionMemory).stag();
        rejected(readOnly, PD, 1, Access.REMOTE_WRITE, BASE, 8, DdpError.INVALID_STAG, StagCheck.ACCESS_DENIED);
        int writeOnly = table.register(PD, BASE, 256, WRITE, regionMemory).stag();
        assertThat(catchThrowableOfType(DdpException.class,
                () -> table.retainedSlice(writeOnly, PD, 1, Access.REMOTE_READ, BASE, 8)).stagCheck())
                .isEqualTo(StagCheck.ACCESS_DENIED);
        int none = table.register(PD, BASE, 256, Set.of(), regionMemory).stag();
        rejected(none, PD, 1, Access.LOCAL_WRITE, BASE, 8, DdpError.INVALID_STAG, StagCheck.ACCESS_DENIED);
    }

    @Test
    void outOfRangeOffsetsAreBaseOrBoundsViolations() {
        // DDP-R-048 #3/#4: TO below base, TO + len past the end, TO far beyond -> 0x1/0x01.
        int stag = table.register(PD, BASE, 256, WRITE, regionMemory).stag();
        rejected(stag, PD, 1, Access.REMOTE_WRITE, BASE - 1, 8, DdpError.BASE_OR_BOUNDS_VIOLATION, StagCheck.BASE_OR_BOUNDS);
        rejected(stag, PD, 1, Access.REMOTE_WRITE, BASE + 249, 8, DdpError.BASE_OR_BOUNDS_VIOLATION, StagCheck.BASE_OR_BOUNDS);
        rejected(stag, PD, 1, Access.REMOTE_WRITE, BASE + 256, 1, DdpError.BASE_OR_BOUNDS_VIOLATION, StagCheck.BASE_OR_BOUNDS);
        rejected(stag, PD, 1, Access.REMOTE_WRITE, BASE, 257, DdpError.BASE_OR_BOUNDS_VIOLATION, StagCheck.BASE_OR_BOUNDS);
        rejected(stag, PD, 1, Access.REMOTE_WRITE, 0, 8, DdpError.BASE_OR_BOUNDS_VIOLATION, StagCheck.BASE_OR_BOUNDS);
        rejected(stag, PD, 1, Access.REMOTE_WRITE, 0x8000000000000000L, 8, DdpError.BASE_OR_BOUNDS_VIOLATION,
                StagCheck.BASE_OR_BOUNDS);
        assertThat(table.check(stag, PD, 1, Access.REMOTE_WRITE, BASE + 256 + (1L << 32), 0xFFFF_FFFFL))
                .isEqualTo(StagCheck.BASE_OR_BOUNDS);
    }

    @Test
    void aWrappingSumIsToWrap() {
        // DDP-R-048 #5: TO = 0xFFFFFFFFFFFFFFF0, length 32 -> 0x1/0x03; also TO + length = 2^64 exactly.
        int stag = table.register(PD, BASE, 256, WRITE, regionMemory).stag();
        rejected(stag, PD, 1, Access.REMOTE_WRITE, 0xFFFFFFFFFFFFFFF0L, 32, DdpError.TO_WRAP, StagCheck.TO_WRAP);
        rejected(stag, PD, 1, Access.REMOTE_WRITE, 0xFFFFFFFFFFFFFFF0L, 16, DdpError.TO_WRAP, StagCheck.TO_WRAP);
        rejected(stag, PD, 1, Access.REMOTE_WRITE, 0xFFFFFFFFFFFFFFF0L, 15, DdpError.BASE_OR_BOUNDS_VIOLATION,
                StagCheck.BASE_OR_BOUNDS);
    }

    @Test
    void aBufferAtTheTopOfTheAddressSpaceWorks() throws Exception {
        long top = 0xFFFFFFFFFFFFFFFFL - 256; // the last octet is at 2^64 - 2: base + length must fit 64 bits
        int stag = table.register(PD, top, 256, WRITE, regionMemory).stag();
        placed(stag, top + 250, 6);
        // Past the end of a buffer that ends at 2^64 - 1 every sum wraps; below its base is still bounds.
        rejected(stag, PD, 1, Access.REMOTE_WRITE, top + 250, 7, DdpError.TO_WRAP, StagCheck.TO_WRAP);
        rejected(stag, PD, 1, Access.REMOTE_WRITE, top - 1, 2, DdpError.BASE_OR_BOUNDS_VIOLATION, StagCheck.BASE_OR_BOUNDS);
        assertThat(regionMemory.getByte(255)).isEqualTo(Bufs.pattern(6, 1)[5]);
        assertThatThrownBy(() -> table.register(PD, top + 1, 256, WRITE, regionMemory))
                .isInstanceOf(IllegalArgumentException.class);
        assertGuardsIntact();
    }

    @Test
    void zeroLengthAccessesAreNeverChecked() throws Exception {
        // DDP-R-031 / §5.2 / MPA2-R-013: a zero-length tagged segment with STag 0xDEADBEEF (unregistered),
        // any TO, any PD -> accepted, no error.
        ByteBuf empty = ByteBufAllocator.DEFAULT.buffer(0);
        try {
            table.place(0xDEADBEEF, 99, 99, Access.REMOTE_WRITE, 0xFFFFFFFFFFFFFFFFL, empty);
            ByteBuf slice = table.retainedSlice(0, 1, 1, Access.REMOTE_READ, 42, 0);
            assertThat(slice.readableBytes()).isZero();
            slice.release();
        } finally {
            empty.release();
        }
        assertThat(table.check(0xDEADBEEF, 99, 99, Access.REMOTE_READ, -1, 0)).isEqualTo(StagCheck.VALID);
        assertGuardsIntact();
    }

    @Test
    void invalidatedStagsFailAndStayInvalid() throws Exception {
        // DDP-R-053 / §8.3 #2: invalidate, then Write -> 0x1/0x00; §8.3.1 #6: no modification afterwards.
        int stag = table.register(PD, BASE, 256, WRITE, regionMemory).stag();
        placed(stag, BASE, 4);
        assertThat(table.invalidate(stag)).isTrue();
        assertThat(table.invalidate(stag)).as("already invalid").isFalse();
        assertThat(table.lookup(stag)).isNull();
        rejected(stag, PD, 1, Access.REMOTE_WRITE, BASE, 8, DdpError.INVALID_STAG, StagCheck.INVALID_STAG);
        assertThat(table.size()).as("invalid but still registered").isEqualTo(1);
        assertThat(table.deregister(stag)).isTrue();
        assertThat(table.deregister(stag)).isFalse();
        assertThat(table.size()).isZero();
        rejected(stag, PD, 1, Access.REMOTE_WRITE, BASE, 8, DdpError.INVALID_STAG, StagCheck.INVALID_STAG);
    }

    @Test
    void remoteInvalidationChecksTheAssociation() {
        // RDMAP-R-023, RDMAP-R-024 via DDP: only an STag of the caller's PD / stream is invalidated.
        long stream = table.newStreamId();
        int stag = table.register(PD, stream, BASE, 256, WRITE, regionMemory).stag();
        assertThat(table.invalidate(stag, PD + 1, stream)).isEqualTo(StagCheck.NOT_ASSOCIATED);
        assertThat(table.invalidate(stag, PD, stream + 1)).isEqualTo(StagCheck.NOT_ASSOCIATED);
        assertThat(table.lookup(stag)).as("still valid").isNotNull();
        assertThat(table.invalidate(stag ^ 1, PD, stream)).isEqualTo(StagCheck.INVALID_STAG);
        assertThat(table.invalidate(stag, PD, stream)).isEqualTo(StagCheck.VALID);
        assertThat(table.invalidate(stag, PD, stream)).isEqualTo(StagCheck.INVALID_STAG);
        assertThat(table.check(stag, PD, stream, Access.REMOTE_WRITE, BASE, 1)).isEqualTo(StagCheck.INVALID_STAG);
    }

    @Test
    void aPdWideBufferIsSharedAcrossStreamsAndCannotBeInvalidatedRemotely() {
        // RDMAP-R-047 (RFC 5040 §8.1.1 item 7): every stream of the PD may use it, so none may revoke it.
        long stream = table.newStreamId();
        int shared = table.register(PD, BASE, 256, WRITE, regionMemory).stag();
        assertThat(table.invalidate(shared, PD, stream)).isEqualTo(StagCheck.NOT_ASSOCIATED);
        assertThat(table.lookup(shared)).as("still valid").isNotNull();
        assertThat(table.check(shared, PD, stream, Access.REMOTE_WRITE, BASE, 1)).isEqualTo(StagCheck.VALID);
        // No remote access does not make it private: a Read names its sink's STag to the peer, and
        // every stream's sinks may come from this one buffer.
        int local = table.register(PD, BASE, 256, EnumSet.of(Access.LOCAL_WRITE), regionMemory).stag();
        assertThat(table.invalidate(local, PD, stream)).isEqualTo(StagCheck.NOT_ASSOCIATED);
        assertThat(table.invalidate(local, PD, TaggedBuffer.ANY_STREAM)).isEqualTo(StagCheck.NOT_ASSOCIATED);
        assertThat(table.invalidate(local, PD, StagTable.LOCAL_REQUEST)).isEqualTo(StagCheck.NOT_ASSOCIATED);
        assertThat(table.lookup(local)).as("still valid").isNotNull();
        assertThat(table.invalidate(local)).as("the local ULP may").isTrue();
    }

    @Test
    void aPlacementTheLocalUlpNamedIsCheckedAgainstTheDomainOnly() throws Exception {
        // A Read Response into the sink of our own Read (RDMAP-R-018): the sink may be bound to
        // another stream of the PD; another PD is still not associated, and no stream may invalidate
        // it remotely as LOCAL_REQUEST.
        long owner = table.newStreamId();
        int sink = table.register(PD, owner, BASE, 256, EnumSet.of(Access.LOCAL_WRITE), regionMemory).stag();
        rejected(sink, PD, table.newStreamId(), Access.LOCAL_WRITE, BASE, 8, DdpError.STAG_NOT_ASSOCIATED,
                StagCheck.NOT_ASSOCIATED);
        rejected(sink, PD + 1, StagTable.LOCAL_REQUEST, Access.LOCAL_WRITE, BASE, 8, DdpError.STAG_NOT_ASSOCIATED,
                StagCheck.NOT_ASSOCIATED);
        rejected(sink, PD, StagTable.LOCAL_REQUEST, Access.REMOTE_WRITE, BASE, 8, DdpError.INVALID_STAG,
                StagCheck.ACCESS_DENIED);
        ByteBuf payload = Bufs.buf(new byte[] {1, 2, 3});
        try {
            table.place(sink, PD, StagTable.LOCAL_REQUEST, Access.LOCAL_WRITE, BASE + 8, payload);
        } finally {
            payload.release();
        }
        assertThat(regionMemory.getByte(10)).isEqualTo((byte) 3);
        assertThat(table.invalidate(sink, PD, StagTable.LOCAL_REQUEST)).isEqualTo(StagCheck.NOT_ASSOCIATED);
        assertThat(table.invalidate(sink, PD, owner)).isEqualTo(StagCheck.VALID);
    }

    @Test
    void reRegistrationChangesTheKeySoStaleStagsFail() throws Exception {
        // DDP-R-053, DDP-R-054: with one slot the index is always reused; the key must change every time, so an
        // STag from the previous registration never reaches the new buffer.
        StagTable one = new StagTable(1);
        int previous = one.register(PD, BASE, 256, WRITE, regionMemory).stag();
        for (int i = 0; i < 600; i++) {
            assertThat(one.deregister(previous)).isTrue();
            int next = one.register(PD, BASE, 256, WRITE, regionMemory).stag();
            assertThat(next >>> 8).isEqualTo(previous >>> 8).isEqualTo(1);
            assertThat(next).isNotEqualTo(previous);
            assertThat(one.check(previous, PD, 1, Access.REMOTE_WRITE, BASE, 1)).isEqualTo(StagCheck.INVALID_STAG);
            previous = next;
        }
    }

    @Test
    void keysAreNotSequentialAcrossManyRegistrationsAndBlockRefills() throws Exception {
        // RFC 5040 §8.1.1 #8, RDMAP-R-039: keys hard to predict. 5000 re-registrations of the one slot draw well
        // past one 4 KiB block of random octets (RandomBlock), so the refill is crossed too. A
        // sequential key would step by 1 every time; random steps of 1..255 do so about 1 in 255.
        StagTable one = new StagTable(1);
        int previous = one.register(PD, BASE, 256, WRITE, regionMemory).stag();
        int stepsOfOne = 0;
        Set<Integer> keys = new HashSet<>();
        int n = 5000;
        for (int i = 0; i < n; i++) {
            assertThat(one.deregister(previous)).isTrue();
            TaggedBuffer b = one.register(PD, BASE, 256, WRITE, regionMemory);
            int next = b.stag();
            assertThat(one.lookup(next)).isSameAs(b);
            assertThat(next & 0xFF).isNotEqualTo(previous & 0xFF);
            if (((next - previous) & 0xFF) == 1) {
                stepsOfOne++;
            }
            keys.add(next & 0xFF);
            previous = next;
        }
        assertThat(stepsOfOne).as("steps of exactly 1 among %d", n).isLessThan(n / 50);
        assertThat(keys).as("every key value turns up").hasSize(256);
        // Indexes of a bigger table: not handed out in order either.
        StagTable big = new StagTable(4096);
        int ascending = 0;
        int last = 0;
        for (int i = 0; i < 4096; i++) {
            int index = big.register(PD, BASE, 256, WRITE, regionMemory).stag() >>> 8;
            ascending += index == last + 1 ? 1 : 0;
            last = index;
        }
        assertThat(ascending).isLessThan(100);
        assertThat(big.size()).isEqualTo(4096);
    }

    @Test
    void placeOfASegmentAttachesItsHeader() throws Exception {
        // DDP-R-049: the report carries the DDP header and the segment length.
        int stag = table.register(PD, BASE, 256, WRITE, regionMemory).stag();
        byte[] ulpdu = Bufs.concat(new byte[] {(byte) 0xC1, 0x40}, new byte[] {(byte) (stag >>> 24),
                (byte) (stag >>> 16), (byte) (stag >>> 8), (byte) stag}, longBytes(BASE + 255), new byte[] {1, 2});
        ByteBuf in = Bufs.buf(ulpdu);
        DdpSegment segment = DdpSegment.decode(in);
        in.release();
        byte[] before = arenaBytes();
        DdpException e = catchThrowableOfType(DdpException.class,
                () -> table.place(segment, PD, 1, Access.REMOTE_WRITE));
        segment.release();
        assertThat(e.error()).isEqualTo(DdpError.BASE_OR_BOUNDS_VIOLATION);
        assertThat(e.segmentHeader()).isEqualTo(java.util.Arrays.copyOf(ulpdu, 14));
        assertThat(e.segmentLength()).isEqualTo(16);
        assertThat(e.stagCheck()).isEqualTo(StagCheck.BASE_OR_BOUNDS);
        assertThat(arenaBytes()).isEqualTo(before);
    }

    @Test
    void retainedSliceIsTheRegisteredMemory() throws Exception {
        // Zero-copy Read Response source (architecture: sliced straight out of the registered memory).
        int stag = table.register(PD, BASE, 256, EnumSet.of(Access.REMOTE_READ), regionMemory).stag();
        regionMemory.setBytes(16, new byte[] {9, 8, 7});
        ByteBuf slice = table.retainedSlice(stag, PD, 1, Access.REMOTE_READ, BASE + 16, 3);
        try {
            assertThat(Bufs.peek(slice)).containsExactly(9, 8, 7);
            regionMemory.setByte(17, 0x55);
            assertThat(slice.getByte(1)).as("shared, not copied").isEqualTo((byte) 0x55);
            assertThat(arena.refCnt()).as("the slice holds a reference").isEqualTo(2);
        } finally {
            slice.release();
        }
        assertThat(catchThrowableOfType(DdpException.class,
                () -> table.retainedSlice(stag, PD, 1, Access.REMOTE_READ, BASE + 250, 7)).error())
                .isEqualTo(DdpError.BASE_OR_BOUNDS_VIOLATION);
    }

    @Test
    void memoryReleasedBehindTheTablesBackIsALocalError() {
        // Best effort only: a released *pooled* buffer may already be recycled (see TaggedBuffer), so this
        // uses an unpooled one, whose release is detectable.
        ByteBuf own = io.netty.buffer.Unpooled.buffer(16).writeZero(16);
        int stag = table.register(PD, BASE, 16, WRITE, own).stag();
        own.release();
        ByteBuf payload = Bufs.buf(new byte[4]);
        DdpException e = catchThrowableOfType(DdpException.class,
                () -> table.place(stag, PD, 1, Access.REMOTE_WRITE, BASE, payload));
        payload.release();
        assertThat(e.error()).isEqualTo(DdpError.LOCAL_CATASTROPHIC);
    }

    /**
     * Memory resized after registration (finding 7 of docs/limits.md's tenth review): registered as
     * rdmap registers it, through a slice, whose capacity does not follow its buffer's. A pooled
     * buffer shrinks in place, so the octets past its new end can be read once the capacity is given
     * back: a placement there, copied by address, wrote them. Every access now fails Local
     * Catastrophic, the guard of direct placement refuses, and the buffer is usable again once its
     * memory is as registered.
     */
    @Test
    void memoryShrunkAfterRegistrationIsALocalErrorAndNothingIsWrittenPastItsEnd() throws Exception {
        byte[] fill = new byte[8192];
        java.util.Arrays.fill(fill, GUARD);
        ByteBuf memory = io.netty.buffer.PooledByteBufAllocator.DEFAULT.directBuffer(8192, 8192).writeBytes(fill);
        try {
            TaggedBuffer buffer = table.register(PD, BASE, 8192, EnumSet.of(Access.REMOTE_WRITE, Access.REMOTE_READ),
                    memory.slice());
            memory.capacity(6000);

            ByteBuf payload = Bufs.buf(Bufs.pattern(1000, 1));
            DdpException e = catchThrowableOfType(DdpException.class,
                    () -> table.place(buffer.stag(), PD, 1, Access.REMOTE_WRITE, BASE + 7000, payload));
            payload.release();
            assertThat(e.error()).isEqualTo(DdpError.LOCAL_CATASTROPHIC);
            assertThat(e).hasMessageContaining("resized or reallocated");
            assertThat(catchThrowableOfType(DdpException.class, () -> table.retainedSlice(buffer.stag(), PD, 1,
                    Access.REMOTE_READ, BASE + 7000, 1000)).error()).isEqualTo(DdpError.LOCAL_CATASTROPHIC);
            assertThat(buffer.placementGuard().enter()).as("direct placement refused").isFalse();

            memory.capacity(8192);
            assertThat(ByteBufUtil.getBytes(memory, 0, 8192)).as("nothing written past the shrunk end").isEqualTo(fill);
            placed(buffer.stag(), BASE + 7000, 1000); // the same memory again: usable
        } finally {
            memory.release();
        }
    }

    @Test
    void heapMemoryReallocatedAfterRegistrationIsALocalError() {
        ByteBuf memory = io.netty.buffer.Unpooled.buffer(64).writeZero(64);
        try {
            int stag = table.register(PD, BASE, 64, WRITE, memory.slice()).stag();
            memory.capacity(128); // a new array
            ByteBuf payload = Bufs.buf(Bufs.pattern(16, 1));
            DdpException e = catchThrowableOfType(DdpException.class,
                    () -> table.place(stag, PD, 1, Access.REMOTE_WRITE, BASE, payload));
            payload.release();
            assertThat(e.error()).isEqualTo(DdpError.LOCAL_CATASTROPHIC);
            assertThat(ByteBufUtil.getBytes(memory, 0, 128)).as("nothing placed in the new array")
                    .isEqualTo(new byte[128]);
        } finally {
            memory.release();
        }
    }

    @Test
    void registrationArgumentsAreValidated() {
        assertThatThrownBy(() -> table.register(PD, BASE, 257, WRITE, regionMemory))
                .as("longer than the memory").isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> table.register(PD, BASE, -1, WRITE, regionMemory))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new StagTable(0)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new StagTable(StagTable.MAX_CAPACITY + 1)).isInstanceOf(IllegalArgumentException.class);
        TaggedBuffer b = table.register(PD, BASE, 0, Set.of(), regionMemory);
        assertThat(b.length()).isZero();
        assertThat(b.access()).isEmpty();
        assertThatThrownBy(() -> b.access().add(Access.REMOTE_READ)).isInstanceOf(UnsupportedOperationException.class);
    }

    private static byte[] longBytes(long v) {
        byte[] b = new byte[8];
        for (int i = 0; i < 8; i++) {
            b[i] = (byte) (v >>> (56 - 8 * i));
        }
        return b;
    }
}
