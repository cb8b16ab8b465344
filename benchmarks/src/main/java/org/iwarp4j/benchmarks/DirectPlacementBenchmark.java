package org.iwarp4j.benchmarks;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.channel.FixedRecvByteBufAllocator;
import io.netty.channel.RecvByteBufAllocator;
import io.netty.channel.embedded.EmbeddedChannel;
import java.util.EnumSet;
import java.util.concurrent.TimeUnit;
import org.iwarp4j.ddp.Access;
import org.iwarp4j.ddp.DdpReceiver;
import org.iwarp4j.ddp.DdpSegment;
import org.iwarp4j.ddp.StagCheck;
import org.iwarp4j.ddp.StagTable;
import org.iwarp4j.ddp.TaggedBuffer;
import org.iwarp4j.ddp.TaggedHeader;
import org.iwarp4j.mpa.DirectPlacement;
import org.iwarp4j.mpa.MpaConstants;
import org.iwarp4j.mpa.MpaFrameDecoder;
import org.iwarp4j.mpa.MpaFrameEncoder;
import org.iwarp4j.mpa.PlacementRecvByteBufAllocator;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Direct placement against copy-then-place, without a socket: a stream of RDMA Write FPDUs (CRC on,
 * no markers) read by simulated socket reads, each of which copies the next octets of the stream into
 * the buffer the channel's receive allocator hands out (standing in for the kernel's copy to user
 * space), then the production {@link MpaFrameDecoder} and DDP placement ({@link
 * DdpReceiver#placeTagged}: STag checks, and the copy into registered memory).
 *
 * <ul>
 *   <li>{@code copy}: the ordinary path: reads of {@code readSize} octets into pooled buffers, the
 *       CRC over them, then DDP copies each payload into the region: two copies per octet.
 *   <li>{@code direct}: direct placement: once an FPDU's header is in, the reads go into slices of the
 *       region (the "kernel" copies the payload into place), the CRC runs over the placed octets, and
 *       DDP's copy is skipped: one copy per octet, plus a short read per FPDU for its trailer and the
 *       next header.
 * </ul>
 *
 * <p>Megabytes are wire octets read / 10^6. The socket read's own cost (the system call) is not in
 * either figure, so the extra short read of {@code direct} is cheaper here than on a real socket:
 * compare with {@code iwarp bench} for that.
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Fork(value = 1, jvmArgsAppend = {"-Dio.netty.leakDetection.level=disabled"})
@Warmup(iterations = 4, time = 2)
@Measurement(iterations = 5, time = 2)
public class DirectPlacementBenchmark {

    private static final int PD = 1;
    private static final long BASE_TO = 0x10_0000L;

    @State(Scope.Thread)
    public static class Stream {

        @Param({"64768", "16384", "4096"})
        public int ulpduSize;

        @Param({"65536"})
        public int readSize;

        @Param({"copy", "direct"})
        public String mode;

        private ByteBufAllocator alloc;
        private ByteBuf wire;
        private int position;
        private EmbeddedChannel channel;
        private RecvByteBufAllocator.Handle reads;
        private ByteBuf region;
        private ReceivePathBenchmark.Placer placer;

        @Setup(Level.Trial)
        public void setUp() {
            alloc = ByteBufAllocator.DEFAULT;
            int payloadSize = ulpduSize - 14;
            region = alloc.directBuffer(payloadSize).writeZero(payloadSize);
            StagTable table = new StagTable(16);
            int stag = table.register(PD, BASE_TO, payloadSize, EnumSet.of(Access.REMOTE_WRITE), region).stag();

            // One FPDU, repeated: every read position wraps at an FPDU boundary.
            ByteBuf payload = Payloads.direct(alloc, payloadSize, 5040);
            EmbeddedChannel encoder = new EmbeddedChannel(new MpaFrameEncoder(false, true, false));
            encoder.writeOutbound(DdpSegment.encode(alloc, new TaggedHeader(true, 0x40, stag, BASE_TO), payload));
            ByteBuf encoded = encoder.readOutbound();
            ByteBuf fpdu = Pipes.wireCopy(alloc, encoded);
            encoded.release();
            encoder.finishAndReleaseAll();
            int copies = Math.max(1, 4 * readSize / fpdu.readableBytes() + 1);
            wire = alloc.directBuffer(copies * fpdu.readableBytes());
            for (int i = 0; i < copies; i++) {
                wire.writeBytes(fpdu, fpdu.readerIndex(), fpdu.readableBytes());
            }
            fpdu.release();

            DdpReceiver receiver = new DdpReceiver(table, PD, table.newStreamId(), java.util.List.of());
            placer = new ReceivePathBenchmark.Placer(receiver);
            channel = new EmbeddedChannel();
            MpaFrameDecoder decoder = new MpaFrameDecoder(false, true, MpaConstants.MAX_ULPDU_LENGTH_FIELD);
            if ("direct".equals(mode)) {
                channel.config().setRecvByteBufAllocator(
                        new PlacementRecvByteBufAllocator(new FixedRecvByteBufAllocator(readSize)));
                decoder.placementAdvisor((head, ulpduLength) -> advise(table, head, ulpduLength), 1024);
            } else if ("copy".equals(mode)) {
                channel.config().setRecvByteBufAllocator(new FixedRecvByteBufAllocator(readSize));
            } else {
                throw new IllegalArgumentException("mode " + mode);
            }
            channel.pipeline().addLast(decoder, placer);
            reads = channel.unsafe().recvBufAllocHandle();
            long before = placer.placed;
            for (int i = 0; i < 4 * wire.readableBytes() / readSize + 8; i++) {
                read();
            }
            if (placer.placed == before || placer.failure != null) {
                throw new IllegalStateException("nothing placed", placer.failure);
            }
        }

        /** The benchmark's RDMAP: a Write's payload goes to its STag's memory if the checks pass. */
        private static DirectPlacement advise(StagTable table, ByteBuf head, int ulpduLength) {
            int at = head.readerIndex();
            int stag = head.getInt(at + 2);
            long to = head.getLong(at + 6);
            int length = ulpduLength - 14;
            if (table.check(stag, PD, TaggedBuffer.ANY_STREAM, Access.REMOTE_WRITE, to, length) != StagCheck.VALID) {
                return null;
            }
            TaggedBuffer buffer = table.lookup(stag);
            return DirectPlacement.of(14, buffer.memory().retainedSlice((int) (to - buffer.baseTo()), length));
        }

        /** One simulated socket read into the allocator's buffer; returns the octets read. */
        int read() {
            ByteBuf buf = reads.allocate(alloc);
            int want = Math.min(buf.writableBytes(), readSize);
            int n = 0;
            while (n < want) {
                int chunk = Math.min(want - n, wire.writerIndex() - position);
                buf.writeBytes(wire, position, chunk);
                n += chunk;
                position += chunk;
                if (position == wire.writerIndex()) {
                    position = 0;
                }
            }
            channel.pipeline().fireChannelRead(buf);
            channel.pipeline().fireChannelReadComplete();
            return n;
        }

        @TearDown(Level.Trial)
        public void tearDown() {
            placer.closing = true; // the decoder reports the FPDU cut off by the end of the run
            channel.finishAndReleaseAll();
            wire.release();
            region.release();
            if (placer.failure != null) {
                throw new IllegalStateException("placement failed", placer.failure);
            }
        }
    }

    @Benchmark
    public void receive(Stream s, Megabytes mb) {
        mb.megabytes += s.read() / 1e6;
    }
}
