package org.iwarp4j.ddp.fuzz;

import static org.assertj.core.api.Assertions.assertThat;

import com.code_intelligence.jazzer.junit.FuzzTest;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.UnpooledByteBufAllocator;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import org.iwarp4j.ddp.Access;
import org.iwarp4j.ddp.DdpException;
import org.iwarp4j.ddp.DdpReceiver;
import org.iwarp4j.ddp.DdpSegment;
import org.iwarp4j.ddp.ReceiveBuffer;
import org.iwarp4j.ddp.StagTable;
import org.iwarp4j.ddp.UntaggedMessage;
import org.iwarp4j.ddp.UntaggedQueue;
import org.iwarp4j.testkit.FuzzInput;

/**
 * Jazzer target for the DDP Data Sink ({@link DdpReceiver}, RFC 5041 §5, §7.1): a sequence of
 * ULPDUs, each as a two-octet length and its octets, decoded and placed the way RDMAP does (tagged
 * segments with RsvdULP opcode 1, a Read Response, need Local Write, others Remote Write). The
 * stream has one tagged buffer of 256 octets at TO 0x1000 and queues 0, 1 and 2 with receive
 * buffers posted. Seeds: ULPDU sequences of the Linux siw rping, perftest and NFS-over-RDMA
 * captures in {@code testdata/captures/} (cut by {@code scripts/fuzz-seeds.py}).
 *
 * <p>Properties: the only exception is {@link DdpException} (RFC 5041 §7.2 errors); after the first
 * the receiver is stopped, {@link DdpReceiver#failure()} is that error, and nothing more is placed
 * or delivered (DDP-R-049); a delivered message fits its buffer; every buffer is released.
 */
class DdpReceiverFuzzTarget {

    private static final int PD = 7;

    @FuzzTest(maxDuration = "10s")
    void fuzz(byte[] input) {
        UnpooledByteBufAllocator alloc = FuzzInput.countingAllocator();
        StagTable table = new StagTable(16);
        List<ByteBuf> memory = new ArrayList<>();
        List<UntaggedMessage> delivered = new ArrayList<>();
        ByteBuf region = alloc.buffer(256).writeZero(256);
        memory.add(region);
        table.register(PD, 0x1000, 256, EnumSet.of(Access.REMOTE_WRITE, Access.LOCAL_WRITE), region);
        List<UntaggedQueue> queues = new ArrayList<>();
        int[][] layout = {{0, 4, 64}, {1, 2, 28}, {2, 1, 64}};
        for (int[] q : layout) {
            UntaggedQueue queue = new UntaggedQueue(q[0], q[1], delivered::add);
            for (int i = 0; i < q[1]; i++) {
                ByteBuf b = alloc.buffer(q[2]).writeZero(q[2]);
                memory.add(b);
                queue.post(ReceiveBuffer.of(i, b, q[2]));
            }
            queues.add(queue);
        }
        DdpReceiver receiver = new DdpReceiver(table, PD, table.newStreamId(), queues);
        DdpException first = null;
        byte[] regionAtError = null;
        int deliveredAtError = -1;
        try {
            for (int at = 0; at + 2 <= input.length; ) {
                int n = Math.min(((input[at] & 0xFF) << 8) | (input[at + 1] & 0xFF), input.length - at - 2);
                ByteBuf ulpdu = alloc.buffer(n).writeBytes(input, at + 2, n);
                at += 2 + n;
                DdpSegment segment = null;
                try {
                    segment = receiver.decode(ulpdu);
                    if (segment != null) {
                        boolean placed = segment.tagged()
                                ? receiver.placeTagged(segment, (segment.header().rsvdUlp() & 0x0F) == 1
                                        ? Access.LOCAL_WRITE : Access.REMOTE_WRITE)
                                : receiver.placeUntagged(segment);
                        assertThat(placed).isEqualTo(first == null);
                    }
                    if (first != null) {
                        assertThat(segment).as("nothing decoded after an error").isNull();
                    }
                } catch (DdpException e) {
                    assertThat(first).as("one error, then silence (DDP-R-049)").isNull();
                    first = e;
                    regionAtError = ByteBufUtil.getBytes(region);
                    deliveredAtError = delivered.size();
                } finally {
                    if (segment != null) {
                        segment.release();
                    }
                    assertThat(ulpdu.release()).isTrue();
                }
            }
            for (UntaggedMessage m : delivered) {
                assertThat(m.length()).isBetween(0L, m.buffer().length());
            }
            if (first != null) {
                assertThat(receiver.isStopped()).isTrue();
                assertThat(receiver.failure()).isSameAs(first);
                assertThat(ByteBufUtil.getBytes(region)).as("nothing placed after the error").isEqualTo(regionAtError);
                assertThat(delivered).hasSize(deliveredAtError);
            }
        } finally {
            memory.forEach(ByteBuf::release);
        }
        FuzzInput.assertNothingHeld(alloc);
    }
}
