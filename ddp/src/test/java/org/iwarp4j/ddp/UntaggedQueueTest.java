package org.iwarp4j.ddp;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * RFC 5041 §5.3, §5.4 and the untagged checks of §7.1 on one queue. Receive buffers are slices of
 * an arena with guard octets; every rejected segment leaves the whole arena unchanged.
 */
class UntaggedQueueTest {

    private static final byte GUARD = (byte) 0x5A;
    private final List<UntaggedMessage> delivered = new ArrayList<>();
    private ByteBuf arena;

    @BeforeEach
    void arena() {
        byte[] guards = new byte[8192];
        Arrays.fill(guards, GUARD);
        arena = Bufs.buf(guards);
    }

    @AfterEach
    void release() {
        arena.release();
    }

    /** A receive buffer of {@code length} octets at arena offset {@code at}, zeroed. */
    private ReceiveBuffer buffer(long wr, int at, int length) {
        arena.setZero(at, length);
        return ReceiveBuffer.of(wr, arena.slice(at, length), length);
    }

    private UntaggedQueue queue(int qn, int capacity) {
        return new UntaggedQueue(qn, capacity, delivered::add);
    }

    private static void place(UntaggedQueue q, boolean last, int msn, int mo, byte[] payload) throws DdpException {
        ByteBuf p = Bufs.buf(payload);
        try {
            q.place(new UntaggedHeader(last, 0x43, 0, q.queueNumber(), msn, mo), p);
            assertThat(p.readerIndex()).isZero();
        } finally {
            p.release();
        }
    }

    private DdpError rejected(UntaggedQueue q, boolean last, int msn, int mo, int length) {
        byte[] before = Bufs.peek(arena);
        int deliveries = delivered.size();
        DdpException e = catchThrowableOfType(DdpException.class, () -> place(q, last, msn, mo, Bufs.pattern(length, 9)));
        assertThat(e).as("must be rejected").isNotNull();
        assertThat(Bufs.peek(arena)).as("nothing written").isEqualTo(before);
        assertThat(delivered).as("nothing delivered").hasSize(deliveries);
        return e.error();
    }

    @Test
    void aThreeSegmentSendIsDeliveredOnceWithItsLength() throws Exception {
        // DDP-R-015, DDP-R-036: delivered only after the L segment; DDP-R-037: length 3000 = MO + len of the L segment;
        // the message may be shorter than the buffer (RDMAP-R-020).
        UntaggedQueue q = queue(0, 4);
        q.post(buffer(11, 100, 4000));
        byte[] message = Bufs.pattern(3000, 5);
        place(q, false, 1, 0, Arrays.copyOfRange(message, 0, 1000));
        place(q, false, 1, 1000, Arrays.copyOfRange(message, 1000, 2000));
        assertThat(delivered).as("no delivery before L").isEmpty();
        place(q, true, 1, 2000, Arrays.copyOfRange(message, 2000, 3000));
        assertThat(delivered).hasSize(1);
        UntaggedMessage m = delivered.get(0);
        assertThat(m.buffer().workRequestId()).isEqualTo(11);
        assertThat(m.length()).isEqualTo(3000);
        assertThat(m.msn()).isEqualTo(1);
        assertThat(m.queueNumber()).isZero();
        assertThat(Bufs.peek(arena.slice(100, 3000))).isEqualTo(message);
        assertThat(arena.getByte(99)).isEqualTo(GUARD);
        assertThat(arena.getByte(4100)).isEqualTo(GUARD);
        assertThat(q.posted()).as("buffer consumed").isZero();
        assertThat(q.nextMsn()).isEqualTo(2);
        // DDP-R-035: at most once: the same MSN again is outside the window now.
        assertThat(rejected(q, true, 1, 0, 10)).isEqualTo(DdpError.INVALID_MSN_RANGE);
    }

    @Test
    void buffersTakeMsnsInPostingOrder() throws Exception {
        // §5.1.2 / §7.1 #5: the first posted buffer takes the next MSN; each later one the MSN after.
        UntaggedQueue q = queue(0, 8);
        for (int i = 0; i < 3; i++) {
            q.post(buffer(100 + i, i * 100, 50));
        }
        for (int msn = 1; msn <= 3; msn++) {
            place(q, true, msn, 0, new byte[] {(byte) msn});
        }
        assertThat(delivered).extracting(m -> m.buffer().workRequestId()).containsExactly(100L, 101L, 102L);
        assertThat(delivered).extracting(UntaggedMessage::msn).containsExactly(1, 2, 3);
        assertThat(delivered).extracting(UntaggedMessage::length).containsOnly(1L);
    }

    @Test
    void noPostedBufferIsNoBuffer() throws Exception {
        // DDP-R-046 (2), DDP-R-047: no posted receive -> 0x2/0x02; also one more message than buffers.
        UntaggedQueue q = queue(0, 4);
        assertThat(rejected(q, true, 1, 0, 10)).isEqualTo(DdpError.NO_BUFFER);
        q.post(buffer(1, 0, 64));
        place(q, true, 1, 0, new byte[4]);
        assertThat(rejected(q, true, 2, 0, 10)).isEqualTo(DdpError.NO_BUFFER);
    }

    @Test
    void msnOutsideTheWindowIsInvalidRange() {
        // DDP-R-046 (5): MSN = expected + 100 -> 0x2/0x03; MSN older than the first available -> 0x2/0x03.
        UntaggedQueue q = queue(0, 4);
        q.post(buffer(1, 0, 64));
        q.post(buffer(2, 64, 64));
        assertThat(rejected(q, true, 101, 0, 10)).isEqualTo(DdpError.INVALID_MSN_RANGE);
        assertThat(rejected(q, true, 4, 0, 10)).isEqualTo(DdpError.INVALID_MSN_RANGE);
        assertThat(rejected(q, true, 3, 0, 10)).as("one past the last posted").isEqualTo(DdpError.NO_BUFFER);
        assertThat(rejected(q, true, 0, 0, 10)).isEqualTo(DdpError.INVALID_MSN_RANGE);
        assertThat(rejected(q, true, 0x80000001, 0, 10)).isEqualTo(DdpError.INVALID_MSN_RANGE);
    }

    @Test
    void moOutsideTheBufferIsInvalidMo() throws Exception {
        // DDP-R-046 (3): MO beyond the buffer -> 0x2/0x04; MO with bit 31 set is a large unsigned offset.
        UntaggedQueue q = queue(0, 4);
        q.post(buffer(1, 0, 64));
        assertThat(rejected(q, false, 1, 64, 1)).isEqualTo(DdpError.INVALID_MO);
        assertThat(rejected(q, false, 1, 1000, 1)).isEqualTo(DdpError.INVALID_MO);
        assertThat(rejected(q, false, 1, 0x80000000, 1)).isEqualTo(DdpError.INVALID_MO);
        assertThat(rejected(q, true, 1, 65, 0)).as("zero-length past the end").isEqualTo(DdpError.INVALID_MO);
        place(q, true, 1, 64, new byte[0]); // zero-length exactly at the end: a 64-octet message
        assertThat(delivered).extracting(UntaggedMessage::length).containsExactly(64L);
    }

    @Test
    void moPlusLengthPastTheEndIsTooLong() {
        // DDP-R-046 (4), RDMAP-R-021: message longer than the posted buffer (MO + len > size) -> 0x2/0x05.
        // (Linux siw reports this case as 0x2/0x02, siw_send_check_ntoh; we follow RFC 5041 §7.2.)
        UntaggedQueue q = queue(0, 4);
        q.post(buffer(1, 0, 1024));
        assertThat(rejected(q, true, 1, 0, 2048)).isEqualTo(DdpError.MESSAGE_TOO_LONG);
        assertThat(rejected(q, true, 1, 1000, 25)).isEqualTo(DdpError.MESSAGE_TOO_LONG);
    }

    @Test
    void wrongQueueNumberIsInvalidQn() {
        UntaggedQueue q = queue(0, 4);
        q.post(buffer(1, 0, 64));
        byte[] before = Bufs.peek(arena);
        ByteBuf p = Bufs.buf(new byte[4]);
        DdpException e = catchThrowableOfType(DdpException.class,
                () -> q.place(new UntaggedHeader(true, 0x43, 0, 1, 1, 0), p));
        p.release();
        assertThat(e.error()).isEqualTo(DdpError.INVALID_QN);
        assertThat(Bufs.peek(arena)).isEqualTo(before);
    }

    @Test
    void msnWrapsFrom0xFfffffffTo0() throws Exception {
        // DDP-R-025 at the Data Sink: messages 0xFFFFFFFE, 0xFFFFFFFF, 0x00000000 in order.
        UntaggedQueue q = new UntaggedQueue(0, 4, 0xFFFFFFFE, delivered::add);
        for (int i = 0; i < 3; i++) {
            q.post(buffer(i, i * 16, 16));
        }
        place(q, true, 0x00000000, 0, new byte[] {3});
        place(q, true, 0xFFFFFFFF, 0, new byte[] {2});
        assertThat(delivered).isEmpty();
        place(q, true, 0xFFFFFFFE, 0, new byte[] {1});
        assertThat(delivered).extracting(UntaggedMessage::msn).containsExactly(0xFFFFFFFE, 0xFFFFFFFF, 0);
        assertThat(q.nextMsn()).isEqualTo(1);
    }

    @Test
    void laterMessagesWaitForEarlierOnes() throws Exception {
        // DDP-R-015/DDP-R-035: delivery in sender order even if MSN 2 completes first (segments of two
        // messages interleaved; placement out of order is allowed, DDP-R-034).
        UntaggedQueue q = queue(0, 4);
        q.post(buffer(1, 0, 100));
        q.post(buffer(2, 100, 100));
        place(q, false, 1, 0, new byte[] {1, 1});
        place(q, true, 2, 0, new byte[] {2, 2, 2});
        assertThat(delivered).isEmpty();
        place(q, true, 1, 2, new byte[] {1});
        assertThat(delivered).extracting(UntaggedMessage::msn).containsExactly(1, 2);
        assertThat(delivered).extracting(UntaggedMessage::length).containsExactly(3L, 3L);
    }

    @Test
    void aMessageWithoutItsLastSegmentIsNeverDelivered() throws Exception {
        // DDP-R-036: a segment with MO > 0 but no L, then nothing -> never delivered; flushed at teardown.
        UntaggedQueue q = queue(0, 4);
        q.post(buffer(1, 0, 100));
        q.post(buffer(2, 100, 100));
        place(q, false, 1, 10, new byte[5]);
        assertThat(delivered).isEmpty();
        List<ReceiveBuffer> flushed = q.flush();
        assertThat(flushed).extracting(ReceiveBuffer::workRequestId).containsExactly(1L, 2L);
        assertThat(q.posted()).isZero();
        assertThat(q.nextMsn()).isEqualTo(3);
    }

    @Test
    void scatterListsAreFilledInOrderAcrossPieces() throws Exception {
        UntaggedQueue q = queue(0, 2);
        arena.setZero(0, 8192);
        ReceiveBuffer scattered = ReceiveBuffer.of(5, List.of(new ScatterEntry(arena, 10, 3),
                new ScatterEntry(arena, 100, 0), new ScatterEntry(arena, 200, 4), new ScatterEntry(arena, 300, 5)));
        assertThat(scattered.length()).isEqualTo(12);
        q.post(scattered);
        place(q, false, 1, 2, new byte[] {1, 2, 3, 4, 5, 6});
        place(q, true, 1, 8, new byte[] {7, 8, 9, 10});
        assertThat(Bufs.peek(arena.slice(10, 3))).containsExactly(0, 0, 1);
        assertThat(Bufs.peek(arena.slice(200, 4))).containsExactly(2, 3, 4, 5);
        assertThat(Bufs.peek(arena.slice(300, 5))).containsExactly(6, 7, 8, 9, 10);
        assertThat(arena.getByte(13)).isZero();
        assertThat(arena.getByte(305)).isZero();
        assertThat(delivered.get(0).length()).isEqualTo(12);
        assertThat(rejected(queue(0, 1), true, 1, 0, 1)).isEqualTo(DdpError.NO_BUFFER);
    }

    @Test
    void rsvdUlpOfTheFirstSegmentIsReported() throws Exception {
        // DDP-R-019/DDP-R-020: RsvdULP given to the ULP on delivery; we report the first segment's (siw too).
        UntaggedQueue q = queue(0, 2);
        q.post(buffer(1, 0, 100));
        ByteBuf p = Bufs.buf(new byte[8]);
        q.place(new UntaggedHeader(false, 0x44, 0x55667788, 0, 1, 0), p);
        q.place(new UntaggedHeader(true, 0x44, 0x11111111, 0, 1, 8), p);
        p.release();
        assertThat(delivered.get(0).rsvdUlp()).isEqualTo(0x44);
        assertThat(delivered.get(0).rsvdUlpWord()).isEqualTo(0x55667788);
    }

    @Test
    void aZeroLengthMessageConsumesABuffer() throws Exception {
        // RDMAP-R-020: a zero-length Send consumes one untagged buffer and reports length 0.
        UntaggedQueue q = queue(0, 2);
        assertThat(rejected(q, true, 1, 0, 0)).isEqualTo(DdpError.NO_BUFFER);
        q.post(buffer(1, 0, 0));
        place(q, true, 1, 0, new byte[0]);
        assertThat(delivered).extracting(UntaggedMessage::length).containsExactly(0L);
    }

    @Test
    void theQueueHoldsNoMoreThanItsCapacity() {
        // Bounded state: only posted buffers exist, and at most capacity of them.
        UntaggedQueue q = queue(0, 2);
        q.post(buffer(1, 0, 8));
        q.post(buffer(2, 8, 8));
        assertThatThrownBy(() -> q.post(buffer(3, 16, 8))).isInstanceOf(IllegalStateException.class);
        assertThat(q.posted()).isEqualTo(2);
        assertThat(q.capacity()).isEqualTo(2);
        assertThatThrownBy(() -> queue(0, 0)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void deliveryCanRepostTheBuffer() throws Exception {
        // The RDMAP pattern for QN 1 (one buffer per IRD slot, reposted when served).
        List<Integer> served = new ArrayList<>();
        UntaggedQueue[] holder = new UntaggedQueue[1];
        holder[0] = new UntaggedQueue(1, 1, m -> {
            served.add(m.msn());
            holder[0].post(m.buffer());
        });
        holder[0].post(buffer(1, 0, 28));
        for (int msn = 1; msn <= 3; msn++) {
            place(holder[0], true, msn, 0, new byte[28]);
        }
        assertThat(served).containsExactly(1, 2, 3);
        assertThat(holder[0].posted()).isEqualTo(1);
    }

    @Test
    void scatterEntriesMustFitTheirBuffer() {
        assertThatThrownBy(() -> new ScatterEntry(arena, 8190, 3)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new ScatterEntry(arena, -1, 1)).isInstanceOf(IllegalArgumentException.class);
        assertThat(new ScatterEntry(arena, 8190, 2).length()).isEqualTo(2);
    }

    /**
     * A posted buffer whose memory stops being a valid target (its region deregistered while it is
     * posted): its guard refuses, nothing is written, the segment fails Local Catastrophic, and
     * MPA's direct placement is handed the same guard, so that a socket read stops there too.
     */
    @Test
    void aBufferWhoseGuardRefusesGetsNothing() throws Exception {
        boolean[] valid = {true};
        int[] held = {0};
        int[] entries = {0};
        org.iwarp4j.mpa.PlacementGuard guard = new org.iwarp4j.mpa.PlacementGuard() {
            @Override
            public boolean enter() {
                if (valid[0]) {
                    held[0]++;
                    entries[0]++;
                }
                return valid[0];
            }

            @Override
            public void exit() {
                held[0]--;
            }
        };
        UntaggedQueue q = queue(0, 2);
        arena.setZero(100, 64);
        q.post(ReceiveBuffer.of(1, arena, 100, 64, guard));
        UntaggedHeader header = new UntaggedHeader(true, 0x43, 0, 0, 1, 0);
        org.iwarp4j.mpa.DirectPlacement placement = q.directPlacement(header, 18, 32);
        assertThat(placement.guard()).isSameAs(guard);
        assertThat(placement.headerLength()).isEqualTo(18);
        placement.target().release();

        valid[0] = false;
        assertThat(rejected(q, true, 1, 0, 32)).isEqualTo(DdpError.LOCAL_CATASTROPHIC);

        valid[0] = true;
        place(q, true, 1, 0, Bufs.pattern(32, 3));
        assertThat(entries[0]).as("the copy entered the guard").isEqualTo(1);
        assertThat(held[0]).as("and left it").isZero();
        assertThat(delivered).hasSize(1);
    }
}
