package org.iwarp4j.benchmarks;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.ByteToMessageDecoder;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.iwarp4j.ddp.Access;
import org.iwarp4j.ddp.DdpException;
import org.iwarp4j.ddp.DdpReceiver;
import org.iwarp4j.ddp.DdpSegment;
import org.iwarp4j.ddp.StagTable;
import org.iwarp4j.ddp.TaggedHeader;
import org.iwarp4j.mpa.MpaConstants;
import org.iwarp4j.mpa.MpaFrameDecoder;
import org.iwarp4j.mpa.MpaFrameEncoder;
import org.iwarp4j.mpa.internal.FpduCumulator;
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
 * The receive path of an RDMA Write, without a socket: TCP reads of {@code readSize} octets (each
 * copied into a fresh pooled direct buffer, as the kernel's copy to user space would fill one)
 * through the production {@link MpaFrameDecoder} (CRC checked, markers removed) and DDP placement
 * ({@link DdpReceiver#placeTagged}: STag checks and the copy into registered memory). The FPDUs
 * are the production encoder's, each carrying one tagged segment of {@code ulpduSize} octets, and
 * reads cut them wherever the read size falls, as TCP does.
 *
 * <ul>
 *   <li>{@code place}: the whole path; {@code cumulator} {@code fpdu} is the decoder's own
 *       ({@link FpduCumulator}: composite joins above 4 KiB), {@code merge} Netty's default that
 *       copies every partial FPDU's rest into a new buffer.
 *   <li>{@code readOnly}: only the simulated socket read (the fresh buffer and its copy): the
 *       floor of any receive path; (place MB/s) / (readOnly MB/s) is what MPA + DDP cost on top.
 * </ul>
 *
 * <p>Megabytes are wire octets / 10^6 (payload is 97-99.97% of them).
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Fork(value = 1, jvmArgsAppend = {"-Dio.netty.leakDetection.level=disabled"})
@Warmup(iterations = 4, time = 2)
@Measurement(iterations = 5, time = 2)
public class ReceivePathBenchmark {

    private static final int PD = 1;
    private static final long BASE_TO = 0x10_0000L;

    @State(Scope.Thread)
    public static class Stream {

        @Param({"64768", "1454"})
        public int ulpduSize;

        @Param({"false", "true"})
        public boolean markers;

        @Param({"fpdu", "merge"})
        public String cumulator;

        @Param({"65536"})
        public int readSize;

        private ByteBufAllocator alloc;
        private ByteBuf wire;
        private int position;
        private EmbeddedChannel channel;
        private ByteBuf region;
        private Placer placer;
        double megabytesPerOp;

        @Setup(Level.Trial)
        public void setUp() {
            alloc = ByteBufAllocator.DEFAULT;
            megabytesPerOp = readSize / 1e6;
            int payloadSize = ulpduSize - 14;
            region = alloc.directBuffer(payloadSize).writeZero(payloadSize);
            StagTable table = new StagTable(16);
            int stag = table.register(PD, BASE_TO, payloadSize, EnumSet.of(Access.REMOTE_WRITE), region).stag();
            ByteBuf payload = Payloads.direct(alloc, payloadSize, 5041);

            // Encode FPDUs from stream offset 0 until the offset mod 512 (all marker logic depends
            // on) repeats; the repeating part is the stream replayed, the part before it is fed once.
            EmbeddedChannel encoder = new EmbeddedChannel(new MpaFrameEncoder(markers, true, false));
            Map<Long, Integer> seen = new HashMap<>();
            List<ByteBuf> fpdus = new ArrayList<>();
            long offset = 0;
            while (!seen.containsKey(offset % MpaConstants.MARKER_INTERVAL)) {
                seen.put(offset % MpaConstants.MARKER_INTERVAL, fpdus.size());
                ByteBuf ulpdu = DdpSegment.encode(alloc, new TaggedHeader(true, 0x40, stag, BASE_TO),
                        payload.retainedDuplicate());
                encoder.writeOutbound(ulpdu);
                ByteBuf fpdu = encoder.readOutbound();
                ByteBuf copy = Pipes.wireCopy(alloc, fpdu);
                fpdu.release();
                offset += copy.readableBytes();
                fpdus.add(copy);
            }
            encoder.finishAndReleaseAll();
            payload.release();
            int cycleStart = seen.get(offset % MpaConstants.MARKER_INTERVAL);
            ByteBuf prefix = concat(fpdus.subList(0, cycleStart));
            // The cycle, repeated so that one replay holds several reads.
            List<ByteBuf> cycle = fpdus.subList(cycleStart, fpdus.size());
            List<ByteBuf> repeated = new ArrayList<>();
            int cycleLength = 0;
            for (ByteBuf b : cycle) {
                cycleLength += b.readableBytes();
            }
            for (int i = 0; i < Math.max(1, 4 * readSize / cycleLength + 1); i++) {
                repeated.addAll(cycle);
            }
            wire = concat(repeated);
            for (ByteBuf b : fpdus) {
                b.release();
            }

            DdpReceiver receiver = new DdpReceiver(table, PD, table.newStreamId(), List.of());
            placer = new Placer(receiver);
            MpaFrameDecoder decoder = new MpaFrameDecoder(markers, true, MpaConstants.MAX_ULPDU_LENGTH_FIELD);
            if ("merge".equals(cumulator)) {
                decoder.setCumulator(ByteToMessageDecoder.MERGE_CUMULATOR);
            } else if (!"fpdu".equals(cumulator)) {
                throw new IllegalArgumentException("cumulator " + cumulator);
            }
            channel = new EmbeddedChannel(decoder, placer);
            channel.pipeline().fireChannelRead(prefix);
            // A few replays to check that everything decodes and is placed.
            long before = placer.placed;
            for (int i = 0; i < 4 * wire.readableBytes() / readSize + 4; i++) {
                read();
            }
            if (placer.placed == before || placer.failure != null) {
                throw new IllegalStateException("nothing placed", placer.failure);
            }
        }

        private ByteBuf concat(List<ByteBuf> parts) {
            int length = 0;
            for (ByteBuf b : parts) {
                length += b.readableBytes();
            }
            ByteBuf all = alloc.directBuffer(Math.max(1, length));
            for (ByteBuf b : parts) {
                all.writeBytes(b, b.readerIndex(), b.readableBytes());
            }
            return all;
        }

        /** One simulated socket read: the next {@code readSize} octets of the stream in a fresh buffer. */
        ByteBuf nextRead() {
            ByteBuf read = alloc.directBuffer(readSize, readSize);
            int n = 0;
            while (n < readSize) {
                int chunk = Math.min(readSize - n, wire.writerIndex() - position);
                wire.getBytes(position, read, n, chunk);
                n += chunk;
                position += chunk;
                if (position == wire.writerIndex()) {
                    position = 0;
                }
            }
            return read.writerIndex(readSize);
        }

        void read() {
            channel.pipeline().fireChannelRead(nextRead());
            channel.pipeline().fireChannelReadComplete();
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

    /** DDP's part of the RDMAP engine for Writes: decode, place, release. */
    static final class Placer extends ChannelInboundHandlerAdapter {
        private final DdpReceiver receiver;
        long placed;
        DdpException failure;
        boolean closing;

        Placer(DdpReceiver receiver) {
            this.receiver = receiver;
        }

        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            ByteBuf ulpdu = (ByteBuf) msg;
            try {
                DdpSegment segment = receiver.decode(ulpdu);
                try {
                    receiver.placeTagged(segment, Access.REMOTE_WRITE);
                    placed += segment.payloadLength();
                } finally {
                    segment.release();
                }
            } catch (DdpException e) {
                failure = e;
            } finally {
                ulpdu.release();
            }
        }

        @Override
        public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
            if (!closing) {
                throw new IllegalStateException("decoder failed", cause);
            }
        }
    }

    @Benchmark
    public void place(Stream s, Megabytes mb) {
        s.read();
        mb.megabytes += s.megabytesPerOp;
    }

    @Benchmark
    public void readOnly(Stream s, Megabytes mb) {
        s.nextRead().release();
        mb.megabytes += s.megabytesPerOp;
    }
}
