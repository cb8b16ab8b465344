package org.iwarp4j.rpcrdma.internal;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import org.iwarp4j.rpcrdma.RecordingAllocator;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** {@link ReadSinks}: kept buffers lent out again once released, bounded, released on every path. */
class ReadSinksTest {

    private static final int MIB = 1 << 20;

    private final RecordingAllocator alloc = new RecordingAllocator();
    private final ReadSinks sinks = new ReadSinks(alloc, 2, MIB);

    @AfterEach
    void close() {
        sinks.close();
    }

    private static void assertSink(ByteBuf b, int length) {
        assertThat(b.readerIndex()).isZero();
        assertThat(b.writerIndex()).isEqualTo(length);
        assertThat(b.capacity()).isEqualTo(length);
        assertThat(b.maxCapacity()).isEqualTo(length);
    }

    @Test
    void aReleasedSinksMemoryIsLentAgainWithoutAllocating() {
        for (int i = 0; i < 100; i++) {
            ByteBuf b = sinks.take(MIB);
            assertSink(b, MIB);
            b.setByte(MIB - 1, i); // writable to the end
            b.release();
        }
        assertThat(alloc.directRequests()).as("one 1 MiB buffer for 100 Reads").containsExactly(MIB);
    }

    @Test
    void aSinkStillHeldThroughADerivedBufferIsNotLentAgain() {
        ByteBuf first = sinks.take(1000);
        ByteBuf derived = first.retainedSlice(10, 100); // as the Call or Reply built from it holds it
        first.release();
        ByteBuf second = sinks.take(1000);
        assertThat(alloc.directRequests()).as("the first kept buffer is busy: a second").hasSize(2);
        derived.release();
        second.release();
        ByteBuf third = sinks.take(500);
        assertSink(third, 500);
        third.release();
        assertThat(alloc.directRequests()).hasSize(2);
        assertThat(sinks.kept()).isEqualTo(2);
    }

    @Test
    void beyondTheBoundSinksAreAllocatedAndFreedAsBefore() {
        ByteBuf a = sinks.take(4096);
        ByteBuf b = sinks.take(4096);
        ByteBuf c = sinks.take(4096); // both kept buffers lent out
        ByteBuf big = sinks.take(MIB + 1); // over the kept size
        assertSink(c, 4096);
        assertSink(big, MIB + 1);
        assertThat(sinks.kept()).isEqualTo(2);
        assertThat(alloc.directRequests()).containsExactly(ReadSinks.MIN_KEPT_SIZE, ReadSinks.MIN_KEPT_SIZE, 4096,
                MIB + 1);
        for (ByteBuf x : new ByteBuf[] {a, b, c, big}) {
            assertThat(x.release()).isTrue();
        }
    }

    @Test
    void aFreeBufferTooSmallGivesWayToABiggerOne() {
        ByteBuf a = sinks.take(100);
        ByteBuf b = sinks.take(100);
        a.release();
        b.release();
        ByteBuf large = sinks.take(300_000);
        assertSink(large, 300_000);
        large.release();
        assertThat(sinks.kept()).isEqualTo(2);
        assertThat(alloc.directRequests()).containsExactly(ReadSinks.MIN_KEPT_SIZE, ReadSinks.MIN_KEPT_SIZE, 512 * 1024);
    }

    @Test
    void aSmallSinkTakesTheSmallestFreeBufferThatFits() {
        ByteBuf large = sinks.take(MIB);
        ByteBuf small = sinks.take(4);
        large.release();
        small.release();
        for (int i = 0; i < 10; i++) { // a 1 MiB result and a 4-octet one per Call, as NFS READ-like Calls
            ByteBuf tiny = sinks.take(4);
            ByteBuf big = sinks.take(MIB);
            assertSink(tiny, 4);
            assertSink(big, MIB);
            tiny.release();
            big.release();
        }
        assertThat(sinks.kept()).isEqualTo(2);
        assertThat(alloc.directRequests()).as("nothing replaced, nothing allocated after the first Call")
                .containsExactly(MIB, ReadSinks.MIN_KEPT_SIZE);
    }

    @Test
    void closeReleasesTheKeptBuffersAndALentSinkStaysUsableUntilReleased() {
        ByteBuf lent = sinks.take(100);
        ByteBuf free = sinks.take(200);
        free.release();
        sinks.close();
        assertThat(sinks.kept()).isZero();
        lent.setByte(99, 1);
        assertThat(lent.getByte(99)).isEqualTo((byte) 1);
        assertThat(lent.release()).isTrue();
        ByteBuf after = sinks.take(100); // a closed pool just allocates
        assertSink(after, 100);
        assertThat(after.release()).isTrue();
        assertThat(sinks.kept()).isZero();
        sinks.close(); // idempotent
    }

    @Test
    void aZeroLengthSinkIsAnEmptyBuffer() {
        ByteBuf b = sinks.take(0);
        assertSink(b, 0);
        b.release();
        assertThat(sinks.kept()).isZero();
    }

    /** The connections of one server keep no more buffers together than their shared quota. */
    @Test
    void connectionsSharingAQuotaKeepNoMoreThanItAndGiveTheirsBackAtClose() {
        KeptBufferQuota quota = new KeptBufferQuota(3);
        ReadSinks first = new ReadSinks(alloc, 2, MIB, quota);
        ReadSinks second = new ReadSinks(alloc, 2, MIB, quota);
        try {
            ByteBuf a = first.take(4096);
            ByteBuf b = first.take(4096);
            ByteBuf c = second.take(4096);
            ByteBuf d = second.take(4096);
            assertThat(first.kept() + second.kept()).as("the quota, not 2 + 2").isEqualTo(3);
            assertThat(quota.held()).isEqualTo(3);
            for (ByteBuf x : new ByteBuf[] {a, b, c, d}) {
                x.release();
            }
            first.close();
            assertThat(quota.held()).isEqualTo(1);
            ByteBuf e = second.take(4096);
            ByteBuf f = second.take(4096);
            assertThat(second.kept()).as("room again").isEqualTo(2);
            e.release();
            f.release();
        } finally {
            first.close();
            second.close();
        }
        assertThat(quota.held()).isZero();
    }
}
