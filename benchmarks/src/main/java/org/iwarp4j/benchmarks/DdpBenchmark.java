package org.iwarp4j.benchmarks;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import java.util.EnumSet;
import java.util.concurrent.TimeUnit;
import org.iwarp4j.ddp.Access;
import org.iwarp4j.ddp.DdpException;
import org.iwarp4j.ddp.DdpHeader;
import org.iwarp4j.ddp.DdpSegment;
import org.iwarp4j.ddp.DdpSegmenter;
import org.iwarp4j.ddp.StagTable;
import org.iwarp4j.ddp.TaggedHeader;
import org.iwarp4j.ddp.UntaggedHeader;
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
 * DDP's per-segment work (RFC 5041), each alone:
 *
 * <ul>
 *   <li>{@code encodeTagged} / {@code encodeUntagged}: a 14- / 18-octet header written into a
 *       reused buffer; {@code decodeTagged} / {@code decodeUntagged}: read back into a header record.
 *   <li>{@code segmentDecode}: {@link DdpSegment#decode} of a tagged ULPDU and its release (the
 *       retained slice RDMAP gets for every inbound ULPDU).
 *   <li>{@code segmenter}: a {@code messageSize} RDMA Write cut into ULPDUs of MULPDU 64768 by
 *       {@link DdpSegmenter} (header buffer + composite with the payload slice, no copy), released.
 *   <li>{@code place}: {@link StagTable#place} of a {@code payloadSize}-octet payload: lookup,
 *       read lock, the RFC 5041 §7.1 checks and the copy into registered memory
 *       ({@code :megabytes} is payload MB/s).
 * </ul>
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Fork(value = 1, jvmArgsAppend = {"-Dio.netty.leakDetection.level=disabled"})
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
public class DdpBenchmark {

    private static final int PD = 1;
    private static final long BASE_TO = 0x7f00_0000_0000L;

    @State(Scope.Thread)
    public static class Headers {
        final TaggedHeader tagged = new TaggedHeader(true, 0x40, 0x1234_5678, BASE_TO + 4096);
        final UntaggedHeader untagged = new UntaggedHeader(true, 0x43, 0, 0, 17, 2048);
        ByteBuf out;
        ByteBuf taggedWire;
        ByteBuf untaggedWire;

        @Setup(Level.Trial)
        public void setUp() {
            out = ByteBufAllocator.DEFAULT.directBuffer(64);
            taggedWire = ByteBufAllocator.DEFAULT.directBuffer(64);
            tagged.encode(taggedWire);
            taggedWire.writeZero(32);
            untaggedWire = ByteBufAllocator.DEFAULT.directBuffer(64);
            untagged.encode(untaggedWire);
        }

        @TearDown(Level.Trial)
        public void tearDown() {
            out.release();
            taggedWire.release();
            untaggedWire.release();
        }
    }

    @Benchmark
    public ByteBuf encodeTagged(Headers h) {
        h.out.clear();
        h.tagged.encode(h.out);
        return h.out;
    }

    @Benchmark
    public ByteBuf encodeUntagged(Headers h) {
        h.out.clear();
        h.untagged.encode(h.out);
        return h.out;
    }

    @Benchmark
    public DdpHeader decodeTagged(Headers h) throws DdpException {
        return DdpHeader.decode(h.taggedWire);
    }

    @Benchmark
    public DdpHeader decodeUntagged(Headers h) throws DdpException {
        return DdpHeader.decode(h.untaggedWire);
    }

    @Benchmark
    public int segmentDecode(Headers h) throws DdpException {
        DdpSegment segment = DdpSegment.decode(h.taggedWire);
        try {
            return segment.payloadLength();
        } finally {
            segment.release();
        }
    }

    @State(Scope.Thread)
    public static class Memory {
        @Param({"1440", "64754"})
        public int payloadSize;

        StagTable table;
        ByteBuf region;
        ByteBuf payload;
        int stag;
        double megabytesPerOp;

        @Setup(Level.Trial)
        public void setUp() {
            table = new StagTable();
            region = ByteBufAllocator.DEFAULT.directBuffer(payloadSize).writeZero(payloadSize);
            stag = table.register(PD, BASE_TO, payloadSize, EnumSet.of(Access.REMOTE_WRITE), region).stag();
            payload = Payloads.direct(ByteBufAllocator.DEFAULT, payloadSize, 5041);
            megabytesPerOp = payloadSize / 1e6;
        }

        @TearDown(Level.Trial)
        public void tearDown() {
            region.release();
            payload.release();
        }
    }

    @State(Scope.Thread)
    public static class Message {
        @Param({"1048576"})
        public int messageSize;

        ByteBuf message;

        @Setup(Level.Trial)
        public void setUp() {
            message = Payloads.direct(ByteBufAllocator.DEFAULT, messageSize, 5040);
        }

        @TearDown(Level.Trial)
        public void tearDown() {
            message.release();
        }
    }

    @Benchmark
    @OutputTimeUnit(TimeUnit.SECONDS)
    public void place(Memory m, Megabytes mb) throws DdpException {
        m.table.place(m.stag, PD, 1, Access.REMOTE_WRITE, BASE_TO, m.payload);
        mb.megabytes += m.megabytesPerOp;
    }

    @Benchmark
    public void segmenter(Message m, Blackhole bh) {
        DdpSegmenter segmenter = DdpSegmenter.tagged(0x40, 0x1234_5678, BASE_TO, m.message, 64768);
        while (segmenter.hasNext()) {
            ByteBuf ulpdu = segmenter.next(ByteBufAllocator.DEFAULT);
            bh.consume(ulpdu);
            ulpdu.release();
        }
    }
}
