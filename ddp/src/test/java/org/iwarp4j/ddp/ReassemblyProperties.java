package org.iwarp4j.ddp;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.channel.embedded.EmbeddedChannel;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.EnumSet;
import java.util.List;
import java.util.Random;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.Size;
import org.iwarp4j.mpa.MpaFrameDecoder;
import org.iwarp4j.mpa.MpaFrameEncoder;

/**
 * Random message sizes x random MULPDU x random arrival: whatever is segmented is reassembled to the
 * same octets (RFC 5041 §5.2, DDP-R-028, DDP-R-029, DDP-R-030), delivered once and in MSN order (DDP-R-015,
 * DDP-R-035), with the right length (DDP-R-037). Placement order may differ from sending order
 * (DDP-R-034: the sink MAY place out of order); the L segment of a message always arrives after its
 * other segments, as DDP-R-014 makes the source send it.
 */
class ReassemblyProperties {

    private static List<DdpSegment> decodeAll(DdpSegmenter segmenter) throws DdpException {
        List<DdpSegment> out = new ArrayList<>();
        while (segmenter.hasNext()) {
            ByteBuf ulpdu = segmenter.next(ByteBufAllocator.DEFAULT);
            try {
                out.add(DdpSegment.decode(ulpdu));
            } finally {
                ulpdu.release();
            }
        }
        return out;
    }

    @Property(tries = 150)
    void untaggedMessagesReassembleWhateverTheArrivalOrder(
            @ForAll @Size(min = 1, max = 8) List<@IntRange(max = 4000) Integer> sizes,
            @ForAll @IntRange(min = 128, max = 9000) int mulpdu, @ForAll int firstMsn, @ForAll long seed)
            throws DdpException {
        Random random = new Random(seed);
        List<UntaggedMessage> delivered = new ArrayList<>();
        UntaggedQueue queue = new UntaggedQueue(0, sizes.size(), firstMsn, delivered::add);
        MsnSequence msns = new MsnSequence(firstMsn);
        byte[][] messages = new byte[sizes.size()][];
        List<DdpSegment> wire = new ArrayList<>();
        List<ByteBuf> payloads = new ArrayList<>();
        ByteBuf receive = ByteBufAllocator.DEFAULT.buffer(8 * 4000).writeZero(8 * 4000);
        try {
            for (int m = 0; m < messages.length; m++) {
                messages[m] = new byte[sizes.get(m)];
                random.nextBytes(messages[m]);
                queue.post(ReceiveBuffer.of(m, receive.slice(4000 * m, 4000), 4000));
                ByteBuf payload = Bufs.buf(messages[m]);
                payloads.add(payload);
                wire.addAll(decodeAll(DdpSegmenter.untagged(0x43, m, 0, msns.next(), payload, mulpdu)));
                payload.release();
            }
            List<DdpSegment> arrival = arrivalOrder(wire, random);
            for (DdpSegment s : arrival) {
                queue.place(s);
            }
            assertThat(delivered).hasSize(messages.length);
            for (int m = 0; m < messages.length; m++) {
                UntaggedMessage got = delivered.get(m);
                assertThat(got.msn()).isEqualTo(firstMsn + m);
                assertThat(got.buffer().workRequestId()).isEqualTo(m);
                assertThat(got.length()).isEqualTo(messages[m].length);
                assertThat(got.rsvdUlpWord()).isEqualTo(m);
                assertThat(Bufs.peek(receive.slice(4000 * m, messages[m].length))).isEqualTo(messages[m]);
            }
            assertThat(queue.posted()).isZero();
        } finally {
            wire.forEach(DdpSegment::release);
            receive.release();
        }
        assertAllReleased(payloads);
    }

    /** jqwik runs outside the Jupiter leak extension: prove no slice of a payload outlived its segment. */
    private static void assertAllReleased(List<ByteBuf> buffers) {
        assertThat(buffers).allSatisfy(b -> assertThat(b.refCnt()).as("leaked reference").isZero());
    }

    /** A random interleaving in which each message's L segment still comes after all its other segments. */
    private static List<DdpSegment> arrivalOrder(List<DdpSegment> wire, Random random) {
        List<DdpSegment> order = new ArrayList<>(wire);
        Collections.shuffle(order, random);
        for (int i = 0; i < order.size(); i++) {
            DdpSegment s = order.get(i);
            if (!s.last()) {
                continue;
            }
            int lastOfMessage = i;
            for (int j = i + 1; j < order.size(); j++) {
                if (order.get(j).untaggedHeader().msn() == s.untaggedHeader().msn()) {
                    lastOfMessage = j;
                }
            }
            Collections.swap(order, i, lastOfMessage);
        }
        return order;
    }

    @Property(tries = 150)
    void taggedSegmentsLandInPlaceInAnyOrder(@ForAll @IntRange(max = 20000) int size,
                                             @ForAll @IntRange(min = 128, max = 9000) int mulpdu,
                                             @ForAll @IntRange(max = 1000) int offset, @ForAll long seed)
            throws DdpException {
        Random random = new Random(seed);
        long base = 0x7F00_0000_0000L + random.nextInt(1 << 20);
        byte[] message = new byte[size];
        random.nextBytes(message);
        StagTable table = new StagTable(2);
        ByteBuf arena = ByteBufAllocator.DEFAULT.buffer(21064).writeZero(21064);
        List<DdpSegment> wire = List.of();
        ByteBuf payload = null;
        try {
            arena.setBytes(0, Bufs.pattern(32, 1));
            arena.setBytes(21032, Bufs.pattern(32, 2));
            int stag = table.register(5, base, 21000, EnumSet.of(Access.REMOTE_WRITE), arena.slice(32, 21000)).stag();
            payload = Bufs.buf(message);
            wire = decodeAll(DdpSegmenter.tagged(0x40, stag, base + offset, payload, mulpdu));
            payload.release();
            assertThat((long) wire.size()).isEqualTo(DdpSegmenter.segmentCount(true, size, mulpdu));
            List<DdpSegment> arrival = new ArrayList<>(wire);
            Collections.shuffle(arrival, random);
            for (DdpSegment s : arrival) {
                table.place(s, 5, 9, Access.REMOTE_WRITE);
            }
            byte[] all = Bufs.peek(arena);
            assertThat(Arrays.copyOfRange(all, 32 + offset, 32 + offset + size)).isEqualTo(message);
            assertThat(Arrays.copyOfRange(all, 0, 32)).isEqualTo(Bufs.pattern(32, 1));
            assertThat(Arrays.copyOfRange(all, 21032, 21064)).isEqualTo(Bufs.pattern(32, 2));
        } finally {
            wire.forEach(DdpSegment::release);
            arena.release();
        }
        assertAllReleased(List.of(payload, arena));
    }

    @Property(tries = 60)
    void messagesCrossTheWholeStackWithRandomTcpChunking(
            @ForAll @Size(min = 1, max = 6) List<@IntRange(max = 3000) Integer> sizes,
            @ForAll @IntRange(min = 128, max = 4000) int mulpdu, @ForAll boolean markers, @ForAll boolean crc,
            @ForAll long seed) throws Exception {
        // DDP over MPA end to end: DdpSegmenter -> MpaFrameEncoder -> TCP bytes cut at random ->
        // MpaFrameDecoder -> DdpReceiver (decode, place), alternating Sends (QN 0) and Writes.
        Random random = new Random(seed);
        StagTable table = new StagTable(4);
        List<UntaggedMessage> delivered = new ArrayList<>();
        UntaggedQueue q0 = new UntaggedQueue(0, sizes.size(), delivered::add);
        DdpReceiver receiver = new DdpReceiver(table, 1, table.newStreamId(), List.of(q0));
        ByteBuf receive = ByteBufAllocator.DEFAULT.buffer(6 * 3000).writeZero(6 * 3000);
        ByteBuf region = ByteBufAllocator.DEFAULT.buffer(6 * 3000).writeZero(6 * 3000);
        EmbeddedChannel sender = new EmbeddedChannel(new MpaFrameEncoder(markers, crc, false));
        EmbeddedChannel sink = new EmbeddedChannel(new MpaFrameDecoder(markers, crc, 0xFFFF));
        List<ByteBuf> payloads = new ArrayList<>(List.of(receive, region));
        try {
            int stag = table.register(1, 0x10000, 6 * 3000, EnumSet.of(Access.REMOTE_WRITE), region).stag();
            MsnSequence msns = new MsnSequence();
            byte[][] messages = new byte[sizes.size()][];
            for (int m = 0; m < messages.length; m++) {
                messages[m] = new byte[sizes.get(m)];
                random.nextBytes(messages[m]);
                if (m % 2 == 0) {
                    q0.post(ReceiveBuffer.of(m, receive.slice(3000 * m, 3000), 3000));
                }
                ByteBuf payload = Bufs.buf(messages[m]);
                payloads.add(payload);
                DdpSegmenter segmenter = m % 2 == 0
                        ? DdpSegmenter.untagged(0x43, 0, 0, msns.next(), payload, mulpdu)
                        : DdpSegmenter.tagged(0x40, stag, 0x10000 + 3000L * m, payload, mulpdu);
                while (segmenter.hasNext()) {
                    sender.writeOutbound(segmenter.next(ByteBufAllocator.DEFAULT));
                }
                payload.release();
            }
            byte[] stream = Bufs.outbound(sender);
            for (int offset = 0; offset < stream.length; ) {
                int n = Math.min(stream.length - offset, 1 + random.nextInt(Math.max(1, stream.length / 8)));
                sink.writeInbound(ByteBufAllocator.DEFAULT.buffer(n).writeBytes(stream, offset, n));
                offset += n;
                for (Object o; (o = sink.readInbound()) != null; ) {
                    ByteBuf ulpdu = (ByteBuf) o;
                    DdpSegment s = null;
                    try {
                        s = receiver.decode(ulpdu);
                        assertThat(s.tagged() ? receiver.placeTagged(s, Access.REMOTE_WRITE)
                                : receiver.placeUntagged(s)).isTrue();
                    } finally {
                        ulpdu.release();
                        if (s != null) {
                            s.release();
                        }
                    }
                }
            }
            sink.checkException();
            int sends = 0;
            for (int m = 0; m < messages.length; m++) {
                if (m % 2 == 0) {
                    UntaggedMessage got = delivered.get(sends++);
                    assertThat(got.buffer().workRequestId()).isEqualTo(m);
                    assertThat(got.length()).isEqualTo(messages[m].length);
                    assertThat(Bufs.peek(receive.slice(3000 * m, messages[m].length))).isEqualTo(messages[m]);
                } else {
                    assertThat(Bufs.peek(region.slice(3000 * m, messages[m].length))).isEqualTo(messages[m]);
                }
            }
            assertThat(delivered).hasSize(sends);
        } finally {
            sender.finishAndReleaseAll();
            sink.finishAndReleaseAll();
            receive.release();
            region.release();
        }
        assertAllReleased(payloads);
    }
}
