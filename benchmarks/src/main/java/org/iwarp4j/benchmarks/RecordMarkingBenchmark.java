package org.iwarp4j.benchmarks;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.ByteToMessageDecoder;
import io.netty.handler.codec.DecoderException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.iwarp4j.oncrpc.RecordMarkingDecoder;
import org.openjdk.jmh.annotations.AuxCounters;
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
 * The ONC RPC record-marking decoder (RFC 5531 §11) on a stream of one-fragment records of
 * {@code recordSize} octets, without a socket: each operation is one simulated TCP read of
 * {@code readSize} octets (copied into a fresh buffer of the default allocator, as the kernel's
 * copy would fill one) through the decoder, cut wherever the read size falls.
 *
 * <ul>
 *   <li>{@code decoder=slice}: the production {@link RecordMarkingDecoder}: a record is a retained
 *       slice of the cumulation, which {@code SliceSafeCumulator} never writes into while a record
 *       holds it (the leftover and the next read are then copied into a new buffer).
 *   <li>{@code decoder=copy}: the decoder as of commit 03bb7ec: every record copied into a buffer
 *       of its own ({@code in.readBytes(length)}), Netty's merge cumulator.
 *   <li>{@code decoder=sliceMerge}: slices with Netty's merge cumulator, the decoder before 03bb7ec
 *       (unsafe when records are read off the event loop with the adaptive allocator, see
 *       docs/oncrpc.md); for reference only.
 *   <li>{@code held=false}: the next handler releases each record at once (a consumer on the event
 *       loop); {@code held=true}: the records of a read are released only after the next read went
 *       through the decoder (a server's workers or a client's caller still hold them), which is
 *       when the slice path must copy.
 * </ul>
 *
 * <p>Scores: {@code decode} ops/s are reads per second; {@code decode:records} is records per
 * second (ns per record = 10^9 / that); {@code readOnly} is the simulated read alone, the floor.
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Fork(value = 1, jvmArgsAppend = {"-Dio.netty.leakDetection.level=disabled"})
@Warmup(iterations = 4, time = 2)
@Measurement(iterations = 5, time = 2)
public class RecordMarkingBenchmark {

    private static final int LAST_FRAGMENT = 0x8000_0000;

    /** Records emitted, which JMH normalises per second: the secondary score {@code <benchmark>:records}. */
    @AuxCounters(AuxCounters.Type.OPERATIONS)
    @State(Scope.Thread)
    public static class Records {
        public long records;

        @Setup(Level.Iteration)
        public void reset() {
            records = 0;
        }
    }

    @State(Scope.Thread)
    public static class Stream {

        @Param({"200", "1048576"})
        public int recordSize;

        @Param({"slice", "copy", "sliceMerge"})
        public String decoder;

        @Param({"false", "true"})
        public boolean held;

        @Param({"65536"})
        public int readSize;

        private ByteBufAllocator alloc;
        private ByteBuf wire;
        private int position;
        private EmbeddedChannel channel;
        private Consumer consumer;

        @Setup(Level.Trial)
        public void setUp() {
            alloc = ByteBufAllocator.DEFAULT;
            // Whole records, at least four reads' worth, replayed: reads fall at varying offsets.
            int count = Math.max(4, 4 * readSize / (recordSize + 4) + 1);
            wire = alloc.directBuffer(count * (recordSize + 4));
            for (int r = 0; r < count; r++) {
                wire.writeInt(LAST_FRAGMENT | recordSize);
                for (int i = 0; i < recordSize; i++) {
                    wire.writeByte(r * 31 + i);
                }
            }
            ByteToMessageDecoder d;
            switch (decoder) {
                case "slice" -> d = new RecordMarkingDecoder(8 << 20);
                case "copy" -> d = new CopyingRecordDecoder();
                case "sliceMerge" -> {
                    d = new RecordMarkingDecoder(8 << 20);
                    d.setCumulator(ByteToMessageDecoder.MERGE_CUMULATOR);
                }
                default -> throw new IllegalArgumentException("decoder " + decoder);
            }
            consumer = new Consumer(held);
            channel = new EmbeddedChannel(d, consumer);
            channel.config().setAllocator(alloc);
            for (int i = 0; i < 2 * wire.readableBytes() / readSize + 4; i++) {
                read();
            }
            if (consumer.records == 0 || consumer.octets != consumer.records * (long) recordSize) {
                throw new IllegalStateException(consumer.records + " records, " + consumer.octets + " octets");
            }
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

        /** One read through the decoder; the number of records it completed. */
        long read() {
            long before = consumer.records;
            channel.pipeline().fireChannelRead(nextRead());
            channel.pipeline().fireChannelReadComplete();
            consumer.releaseEarlierReads();
            return consumer.records - before;
        }

        @TearDown(Level.Trial)
        public void tearDown() {
            consumer.held = false;
            consumer.releaseEarlierReads();
            consumer.releaseEarlierReads();
            channel.finishAndReleaseAll();
            wire.release();
        }
    }

    /** The next handler: reads the record's first word (an RPC xid), releases it now or one read later. */
    static final class Consumer extends ChannelInboundHandlerAdapter {
        boolean held;
        long records;
        long octets;
        long sum;
        private List<ByteBuf> thisRead = new ArrayList<>();
        private List<ByteBuf> lastRead = new ArrayList<>();

        Consumer(boolean held) {
            this.held = held;
        }

        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            ByteBuf record = (ByteBuf) msg;
            records++;
            octets += record.readableBytes();
            sum += record.getInt(record.readerIndex());
            if (held) {
                thisRead.add(record);
            } else {
                record.release();
            }
        }

        /** Called after each read: what the read before it emitted goes now. */
        void releaseEarlierReads() {
            for (ByteBuf b : lastRead) {
                b.release();
            }
            lastRead.clear();
            List<ByteBuf> t = lastRead;
            lastRead = thisRead;
            thisRead = t;
        }

        @Override
        public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
            throw new IllegalStateException("decoder failed", cause);
        }
    }

    /**
     * The one-fragment path of {@code RecordMarkingDecoder} as of commit 03bb7ec (record bounds and
     * time limits left out; the stream here has neither): each record copied into a buffer of its
     * own, Netty's default (merge) cumulator.
     */
    static final class CopyingRecordDecoder extends ByteToMessageDecoder {
        @Override
        protected void decode(ChannelHandlerContext ctx, ByteBuf in, List<Object> out) {
            while (in.readableBytes() >= 4) {
                int mark = in.getInt(in.readerIndex());
                if ((mark & LAST_FRAGMENT) == 0) {
                    throw new DecoderException("only one-fragment records here");
                }
                int length = mark & ~LAST_FRAGMENT;
                if (in.readableBytes() < 4 + length) {
                    return;
                }
                in.skipBytes(4);
                out.add(in.readBytes(length));
            }
        }
    }

    @Benchmark
    public long decode(Stream s, Records r) {
        long n = s.read();
        r.records += n;
        return n;
    }

    @Benchmark
    public void readOnly(Stream s) {
        s.nextRead().release();
    }
}
