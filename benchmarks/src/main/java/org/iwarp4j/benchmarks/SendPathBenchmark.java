package org.iwarp4j.benchmarks;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelOutboundHandlerAdapter;
import io.netty.channel.ChannelPromise;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.channel.epoll.Epoll;
import io.netty.channel.unix.IovArray;
import java.util.ArrayDeque;
import java.util.concurrent.TimeUnit;
import java.util.zip.CRC32C;
import org.iwarp4j.ddp.DdpSegmenter;
import org.iwarp4j.mpa.MpaFrameEncoder;
import org.iwarp4j.mpa.OutboundUlpdu;
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
 * The Java side of sending one RDMA Write: the message (a slice of registered memory) cut into
 * DDP segments by {@link DdpSegmenter}, each framed by the production {@link MpaFrameEncoder} (CRC
 * on, no markers), and the FPDUs handed to a stand-in for epoll's gathering write that does what
 * Netty's epoll channel does before the system call: each flushed message added to an
 * {@link IovArray} (for a composite buffer, one NIO view per component), up to
 * {@code maxBytesPerGatheringWrite} octets per "writev", then the written messages released. The
 * system call itself, and the kernel's copy, are left out: this isolates what iwarp4j and Netty
 * cost per octet on the send side, which the end-to-end bench cannot separate from the receiver.
 *
 * <p>Megabytes are message payload octets / 10^6: {@code :megabytes} is MB/s, {@code :cpuMegabytes}
 * MB per second of the benchmark thread's CPU time (see {@link Megabytes}). The leak detector is
 * off in the fork, as in {@link MpaFramingBenchmark}; run with
 * {@code -jvmArgsAppend -Dio.netty.leakDetection.level=simple} to include its default sampling.
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Fork(value = 1, jvmArgsAppend = {"-Dio.netty.leakDetection.level=disabled"})
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
public class SendPathBenchmark {

    /** One queue pair's send side in an embedded pipeline. */
    @State(Scope.Thread)
    public static class Sender {

        @Param({"65536", "1048576"})
        public int messageSize;

        /** MULPDU: 64768 is what loopback's MSS gives once the window has opened. */
        @Param({"64768"})
        public int mulpdu;

        /**
         * How segments reach the encoder: {@code ulpdu}, {@link DdpSegmenter#nextUlpdu} (what RDMAP
         * writes: the encoder sends header and payload as flat buffers, each trailer joined to the
         * next FPDU's header); {@code
         * bytebuf}, {@link DdpSegmenter#next} (a composite ULPDU, framed as a composite FPDU: what
         * RDMAP wrote before); {@code copy}, {@link DdpSegmenter#nextUlpdu} framed by {@link
         * CopyingFramer} instead of the production encoder: each FPDU copied into one pooled
         * direct buffer, the CRC over the copy (the "encode contiguously" alternative, measured
         * against zero copy).
         */
        @Param({"ulpdu", "bytebuf", "copy"})
        public String api;

        /** Octets per simulated writev (Netty's maxBytesPerGatheringWrite). */
        @Param({"262144"})
        public int maxBytesPerWrite;

        ByteBuf region;
        EmbeddedChannel channel;
        GatheringWriteSink sink;
        double megabytesPerOp;
        boolean parts;
        long to;

        @Setup(Level.Trial)
        public void setUp() {
            Epoll.ensureAvailability(); // IovArray needs Netty's native unix library
            region = Unpooled.directBuffer(messageSize, messageSize).writeBytes(Payloads.bytes(messageSize, 5040));
            sink = new GatheringWriteSink(maxBytesPerWrite);
            parts = switch (api) {
                case "ulpdu", "copy" -> true;
                case "bytebuf" -> false;
                default -> throw new IllegalArgumentException("api " + api);
            };
            channel = new EmbeddedChannel(sink,
                    "copy".equals(api) ? new CopyingFramer() : new MpaFrameEncoder(false, true, false));
            megabytesPerOp = messageSize / 1e6;
        }

        @TearDown(Level.Trial)
        public void tearDown() {
            channel.finishAndReleaseAll();
            sink.release();
            region.release();
        }
    }

    @Benchmark
    public long rdmaWrite(Sender s, Megabytes mb) {
        ByteBuf payload = s.region.retainedSlice(0, s.messageSize);
        DdpSegmenter segmenter = DdpSegmenter.tagged(0x40, 0x1234, s.to, payload, s.mulpdu);
        EmbeddedChannel ch = s.channel;
        boolean parts = s.parts;
        try {
            while (segmenter.hasNext()) {
                ch.write(parts ? segmenter.nextUlpdu() : segmenter.next(ch.alloc()), ch.voidPromise());
            }
        } finally {
            payload.release();
        }
        ch.flush();
        s.to += s.messageSize;
        mb.megabytes += s.megabytesPerOp;
        return s.sink.octets;
    }

    /**
     * Frames each {@link OutboundUlpdu} (no markers, CRC on) by copying it into one new direct
     * buffer with its framing and computing the CRC over that copy: the octets MPA sends, as
     * {@link MpaFrameEncoder} sends small ULPDUs, here for every size.
     */
    static final class CopyingFramer extends ChannelOutboundHandlerAdapter {
        private final CRC32C crc = new CRC32C();

        @Override
        public void write(ChannelHandlerContext ctx, Object msg, ChannelPromise promise) {
            OutboundUlpdu ulpdu = (OutboundUlpdu) msg;
            ByteBuf fpdu;
            try {
                int length = ulpdu.length();
                int pad = MpaFrameEncoder.padLength(length);
                int wire = 2 + length + pad + 4;
                fpdu = ctx.alloc().directBuffer(wire, wire);
                ByteBuf payload = ulpdu.payload();
                fpdu.writeShort(length).writeBytes(ulpdu.header())
                        .writeBytes(payload, payload.readerIndex(), payload.readableBytes()).writeZero(pad);
                crc.reset();
                crc.update(fpdu.internalNioBuffer(0, fpdu.writerIndex()));
                fpdu.writeIntLE((int) crc.getValue());
            } finally {
                ulpdu.release();
            }
            ctx.write(fpdu, promise);
        }
    }

    /**
     * In place of the socket: queues what is written; on flush, builds iovec arrays as epoll's
     * {@code doWriteMultiple} does and "writes" all of each, releasing the messages it covered.
     */
    static final class GatheringWriteSink extends ChannelOutboundHandlerAdapter {
        private final ArrayDeque<ByteBuf> queue = new ArrayDeque<>();
        private final IovArray iov = new IovArray();
        long octets;

        GatheringWriteSink(int maxBytes) {
            iov.maxBytes(maxBytes);
        }

        @Override
        public void write(ChannelHandlerContext ctx, Object msg, ChannelPromise promise) {
            queue.add((ByteBuf) msg);
            promise.trySuccess();
        }

        @Override
        public void flush(ChannelHandlerContext ctx) throws Exception {
            while (!queue.isEmpty()) {
                iov.clear();
                for (ByteBuf buf : queue) {
                    if (!iov.processMessage(buf)) {
                        break;
                    }
                }
                long written = iov.size();
                octets += written;
                while (written > 0) {
                    ByteBuf head = queue.peek();
                    int readable = head.readableBytes();
                    if (readable <= written) {
                        queue.poll().release();
                        written -= readable;
                    } else {
                        head.skipBytes((int) written);
                        written = 0;
                    }
                }
                while (!queue.isEmpty() && !queue.peek().isReadable()) {
                    queue.poll().release();
                }
            }
        }

        void release() {
            for (ByteBuf buf; (buf = queue.poll()) != null; ) {
                buf.release();
            }
            iov.release();
        }
    }
}
