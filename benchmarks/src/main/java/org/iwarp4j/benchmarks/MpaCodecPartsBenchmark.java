package org.iwarp4j.benchmarks;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.ByteBufUtil;
import io.netty.channel.ChannelHandler;
import io.netty.channel.embedded.EmbeddedChannel;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.iwarp4j.mpa.MpaConstants;
import org.iwarp4j.mpa.MpaFrameDecoder;
import org.iwarp4j.mpa.MpaFrameEncoder;
import org.iwarp4j.mpa.internal.MpaMeters;
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
 * Where {@link MpaFramingBenchmark#framing}'s time goes: the encoder alone and the decoder alone
 * (CRC on), each in a one-handler pipeline. Also the no-registry
 * meters' cost ({@code noopMeters}: the four Counter.increment calls one FPDU costs, two per side).
 *
 * <p>The decoder is fed pre-encoded FPDUs (contiguous direct buffers) in the order of the marker
 * positions' cycle, so that with markers every FPDU arrives at the stream offset it was made for.
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Fork(value = 1, jvmArgsAppend = {"-Dio.netty.leakDetection.level=disabled"})
@Warmup(iterations = 4, time = 2)
@Measurement(iterations = 5, time = 2)
public class MpaCodecPartsBenchmark {

    @State(Scope.Thread)
    public static class Parts {

        @Param({"64768", "1454"})
        public int ulpduSize;

        @Param({"false", "true"})
        public boolean markers;

        ByteBuf ulpdu;
        double megabytesPerOp;
        private EmbeddedChannel encoderChannel;
        private Pipes.OutboundSink encoded;
        private EmbeddedChannel decoderChannel;
        private Pipes.InboundSink decoded;
        private ByteBuf[] cycle;
        private int next;

        private ChannelHandler newEncoder() {
            return new MpaFrameEncoder(markers, true, false);
        }

        private ChannelHandler newDecoder() {
            return new MpaFrameDecoder(markers, true, MpaConstants.MAX_ULPDU);
        }

        @Setup(Level.Trial)
        public void setUp() {
            megabytesPerOp = ulpduSize / 1e6;
            encoded = new Pipes.OutboundSink();
            encoderChannel = new EmbeddedChannel(encoded, newEncoder());
            decoded = new Pipes.InboundSink();
            decoderChannel = new EmbeddedChannel(newDecoder(), decoded);
            ByteBufAllocator alloc = encoderChannel.alloc();
            ulpdu = Payloads.direct(alloc, ulpduSize, 5044);

            // FPDUs as the production encoder makes them from stream offset 0, until the offset
            // (mod 512, all the decoder's marker logic depends on) comes back to one already seen.
            EmbeddedChannel reference = new EmbeddedChannel(new MpaFrameEncoder(markers, true, false));
            Map<Long, Integer> seen = new HashMap<>();
            List<ByteBuf> wires = new ArrayList<>();
            long offset = 0;
            while (!seen.containsKey(offset % MpaConstants.MARKER_INTERVAL)) {
                seen.put(offset % MpaConstants.MARKER_INTERVAL, wires.size());
                reference.writeOutbound(ulpdu.retainedDuplicate());
                ByteBuf fpdu = reference.readOutbound();
                ByteBuf wire = Pipes.wireCopy(alloc, fpdu);
                fpdu.release();
                offset += wire.readableBytes();
                wires.add(wire);
            }
            reference.finishAndReleaseAll();
            int cycleStart = seen.get(offset % MpaConstants.MARKER_INTERVAL);
            for (int i = 0; i < cycleStart; i++) {
                decodeAndCheck(wires.get(i));
            }
            cycle = wires.subList(cycleStart, wires.size()).toArray(new ByteBuf[0]);
            for (int i = 0; i < cycleStart; i++) {
                wires.get(i).release();
            }
            for (int round = 0; round < 3; round++) {
                for (int i = 0; i < cycle.length; i++) {
                    decodeAndCheck(cycle[i]);
                }
            }
            // And the encoder's FPDUs decode back to the ULPDU.
            EmbeddedChannel check = new EmbeddedChannel(
                    new Pipes.WireLoop(), newEncoder(), new MpaFrameDecoder(markers, true, MpaConstants.MAX_ULPDU));
            for (int i = 0; i < 300; i++) {
                check.write(ulpdu.retainedDuplicate(), check.voidPromise());
                ByteBuf out = check.readInbound();
                boolean same = ByteBufUtil.equals(out, ulpdu);
                out.release();
                if (!same) {
                    throw new IllegalStateException("round trip " + i + " changed the ULPDU");
                }
            }
            check.finishAndReleaseAll();
        }

        private void decodeAndCheck(ByteBuf wire) {
            ByteBuf out = decode(wire);
            boolean same = ByteBufUtil.equals(out, ulpdu);
            out.release();
            if (!same) {
                throw new IllegalStateException("the decoder changed the ULPDU");
            }
        }

        ByteBuf encode() {
            encoderChannel.write(ulpdu.retainedDuplicate(), encoderChannel.voidPromise());
            return encoded.take();
        }

        ByteBuf decode(ByteBuf wire) {
            decoderChannel.pipeline().fireChannelRead(wire.retainedDuplicate());
            return decoded.take();
        }

        ByteBuf decodeNext() {
            ByteBuf wire = cycle[next];
            next = next + 1 == cycle.length ? 0 : next + 1;
            return decode(wire);
        }

        @TearDown(Level.Trial)
        public void tearDown() {
            ulpdu.release();
            for (ByteBuf wire : cycle) {
                wire.release();
            }
            encoderChannel.finishAndReleaseAll();
            decoderChannel.finishAndReleaseAll();
        }
    }

    @Benchmark
    public void encode(Parts s, Megabytes mb, Blackhole bh) {
        ByteBuf fpdu = s.encode();
        try {
            if (fpdu.readableBytes() < s.ulpduSize + 6) {
                throw new IllegalStateException("FPDU of " + fpdu.readableBytes() + " octets");
            }
            bh.consume(fpdu);
        } finally {
            fpdu.release();
        }
        mb.megabytes += s.megabytesPerOp;
    }

    @Benchmark
    public void decode(Parts s, Megabytes mb, Blackhole bh) {
        ByteBuf out = s.decodeNext();
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

    /** The Counter.increment calls of one FPDU's encode + decode with no registry (MpaMeters.of(null)). */
    @Benchmark
    public void noopMeters(Blackhole bh) {
        MpaMeters meters = METERS;
        meters.fpdusSent.increment();
        meters.bytesSent.increment(64776);
        meters.fpdusReceived.increment();
        meters.bytesReceived.increment(64776);
        bh.consume(meters);
    }

    private static final MpaMeters METERS = MpaMeters.of(null);
}
