package org.iwarp4j.benchmarks;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.ByteBufUtil;
import io.netty.channel.ChannelHandler;
import io.netty.channel.embedded.EmbeddedChannel;
import java.nio.ByteBuffer;
import java.util.concurrent.TimeUnit;
import java.util.zip.CRC32C;
import org.iwarp4j.mpa.MpaConstants;
import org.iwarp4j.mpa.MpaFrameDecoder;
import org.iwarp4j.mpa.MpaFrameEncoder;
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
import org.openjdk.jmh.infra.Blackhole;

/**
 * MPA framing cost against a plain copy of the same bytes.
 *
 * <ul>
 *   <li>{@code framing}: one ULPDU through the production {@link MpaFrameEncoder} (CRC on), the
 *       FPDU copied into one contiguous direct buffer (the "wire": what a socket write + read costs
 *       at least), that buffer through the production {@link MpaFrameDecoder} (CRC checked), and
 *       the ULPDU taken out, its length checked, consumed and released.
 *   <li>{@code plainCopy}: the same number of octets copied from one direct ByteBuf into a new one
 *       from the same allocator (by the same getBytes as the wire copy), taken out the same way and
 *       released. {@code framing} contains exactly this copy, so (framing MB/s) / (plainCopy MB/s)
 *       is the share of framing's time that a transport's one copy would take anyway.
 *   <li>{@code crcOnly}: CRC32C over the same octets in a direct ByteBuffer ({@code framing} does
 *       it twice: once to send, once to check).
 * </ul>
 *
 * <p>{@code harness}: {@code pipeline} (default) runs encoder and decoder in one channel's
 * pipeline, closed by a handler that turns each outbound FPDU into an inbound wire buffer, with a
 * void promise; {@code embedded} uses two {@link EmbeddedChannel}s and their
 * writeOutbound/readOutbound/writeInbound/readInbound, whose queues, promises and checks cost
 * 0.4-0.8 µs per op more (measured at 1454 octets: 1.2-1.6 µs/op against 1.6-2.4; ~5% at 64768),
 * which is harness, not MPA.
 *
 * <p>Megabytes are ULPDU payload octets / 10^6: the secondary score {@code :megabytes} is MB/s,
 * {@code :cpuMegabytes} MB per second of the benchmark thread's CPU time (see {@link Megabytes}).
 *
 * <p>Netty's leak detector is off in the forks ({@code -Dio.netty.leakDetection.level=disabled}):
 * its default sampling (SIMPLE) cost 20-50% here on the allocation-heavy marker path. Warm-up is
 * 5 x 2 s because the marker path is still speeding up in the third 2 s iteration.
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Fork(value = 1, jvmArgsAppend = {"-Dio.netty.leakDetection.level=disabled"})
@Warmup(iterations = 5, time = 2)
@Measurement(iterations = 6, time = 2)
public class MpaFramingBenchmark {

    /** Channel set-up for {@code framing}. */
    @State(Scope.Thread)
    public static class Framing {

        @Param({"64768", "16384", "1454"})
        public int ulpduSize;

        @Param({"false", "true"})
        public boolean markers;

        @Param({"pipeline"})
        public String harness;

        ByteBuf ulpdu;
        double megabytesPerOp;
        private boolean embedded;
        private EmbeddedChannel channel;
        private Pipes.InboundSink sink;
        private EmbeddedChannel encoderChannel;
        private EmbeddedChannel decoderChannel;

        @Setup(Level.Trial)
        public void setUp() {
            megabytesPerOp = ulpduSize / 1e6;
            ChannelHandler encoder = new MpaFrameEncoder(markers, true, false);
            ChannelHandler decoder = new MpaFrameDecoder(markers, true, MpaConstants.MAX_ULPDU);
            switch (harness) {
                case "pipeline" -> {
                    embedded = false;
                    sink = new Pipes.InboundSink();
                    channel = new EmbeddedChannel(new Pipes.WireLoop(), encoder, decoder, sink);
                }
                case "embedded" -> {
                    embedded = true;
                    encoderChannel = new EmbeddedChannel(encoder);
                    decoderChannel = new EmbeddedChannel(decoder);
                }
                default -> throw new IllegalArgumentException("harness " + harness);
            }
            ByteBufAllocator alloc = (channel != null ? channel : encoderChannel).alloc();
            ulpdu = Payloads.direct(alloc, ulpduSize, 5044);
            // Every ULPDU comes out intact, whatever the marker positions (they move FPDU by FPDU).
            for (int i = 0; i < 300; i++) {
                ByteBuf out = roundTrip();
                try {
                    if (!ByteBufUtil.equals(out, ulpdu)) {
                        throw new IllegalStateException("round trip " + i + " changed the ULPDU");
                    }
                } finally {
                    out.release();
                }
            }
        }

        /** One ULPDU through encoder, wire copy and decoder; the caller releases the result. */
        ByteBuf roundTrip() {
            ByteBuf in = ulpdu.retainedDuplicate();
            if (!embedded) {
                channel.write(in, channel.voidPromise());
                return sink.take();
            }
            encoderChannel.writeOutbound(in);
            ByteBuf fpdu = encoderChannel.readOutbound();
            ByteBuf wire;
            try {
                wire = Pipes.wireCopy(encoderChannel.alloc(), fpdu);
            } finally {
                fpdu.release();
            }
            decoderChannel.writeInbound(wire);
            return decoderChannel.readInbound();
        }

        @TearDown(Level.Trial)
        public void tearDown() {
            ulpdu.release();
            for (EmbeddedChannel ch : new EmbeddedChannel[] {channel, encoderChannel, decoderChannel}) {
                if (ch != null) {
                    ch.finishAndReleaseAll();
                }
            }
        }
    }

    /** The same octets for the baselines. */
    @State(Scope.Thread)
    public static class Octets {

        @Param({"64768", "16384", "1454"})
        public int ulpduSize;

        ByteBufAllocator alloc;
        ByteBuf source;
        ByteBuffer nio;
        final CRC32C crc = new CRC32C();
        double megabytesPerOp;

        @Setup(Level.Trial)
        public void setUp() {
            // The allocator the channels use (Netty 4.2: the adaptive pooled allocator).
            alloc = new EmbeddedChannel().alloc();
            source = Payloads.direct(alloc, ulpduSize, 5044);
            nio = ByteBuffer.allocateDirect(ulpduSize);
            nio.put(Payloads.bytes(ulpduSize, 5044)).flip();
            megabytesPerOp = ulpduSize / 1e6;
        }

        @TearDown(Level.Trial)
        public void tearDown() {
            source.release();
        }
    }

    @Benchmark
    public void framing(Framing s, Megabytes mb, Blackhole bh) {
        ByteBuf out = s.roundTrip();
        try {
            if (out.readableBytes() != s.ulpduSize) {
                throw new IllegalStateException("ULPDU of " + out.readableBytes() + " octets");
            }
            bh.consume(out);
        } finally {
            out.release();
        }
        mb.megabytes += s.megabytesPerOp;
    }

    @Benchmark
    public void plainCopy(Octets s, Megabytes mb, Blackhole bh) {
        int length = s.ulpduSize;
        ByteBuf copy = Pipes.copy(s.alloc, s.source, s.source.readerIndex(), length);
        try {
            if (copy.readableBytes() != length) {
                throw new IllegalStateException("copy of " + copy.readableBytes() + " octets");
            }
            bh.consume(copy);
        } finally {
            copy.release();
        }
        mb.megabytes += s.megabytesPerOp;
    }

    @Benchmark
    public long crcOnly(Octets s, Megabytes mb) {
        CRC32C crc = s.crc;
        crc.reset();
        ByteBuffer nio = s.nio;
        nio.clear();
        crc.update(nio);
        mb.megabytes += s.megabytesPerOp;
        return crc.getValue();
    }
}
