package org.iwarp4j.benchmarks;

import static org.iwarp4j.mpa.MpaConstants.CRC_LENGTH;
import static org.iwarp4j.mpa.MpaConstants.MARKER_INTERVAL;
import static org.iwarp4j.mpa.MpaConstants.MARKER_LENGTH;
import static org.iwarp4j.mpa.internal.MarkerSpacing.isMarkerOffset;
import static org.iwarp4j.mpa.internal.MarkerSpacing.markerAtOrAfter;
import static org.iwarp4j.mpa.internal.MarkerSpacing.markersBeforeCrc;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.CompositeByteBuf;
import io.netty.channel.embedded.EmbeddedChannel;
import java.util.concurrent.TimeUnit;
import java.util.zip.CRC32C;
import org.iwarp4j.mpa.MpaFrameEncoder;
import org.iwarp4j.mpa.internal.ByteBufCrc32c;
import org.iwarp4j.mpa.internal.MarkedCopy;
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
 * The copies of the contiguous FPDU path, without a pipeline, so that the algorithms can be
 * compared in one run: {@code impl=legacy} is the per-piece ByteBuf algorithm the encoder and
 * decoder used until 2026-11-26 (kept here, NOT PRODUCTION CODE: {@code getBytes} per piece
 * between markers, a second pass for the CRC, FPDUPTRs read by {@code getUnsignedShort}),
 * {@code impl=current} is production ({@link MarkedCopy}: pieces and markers by memory address,
 * where the buffers have one, else as before; the CRC in one pass over one NIO view).
 *
 * <p>{@code encode}: one ULPDU (a pooled direct buffer) into one FPDU buffer, CRC on, the stream
 * offset moving on FPDU by FPDU as on a connection. {@code decode}: the ULPDU out of one FPDU of
 * the marker cycle (CRC checked, every FPDUPTR checked), the FPDU either in one direct buffer
 * ({@code split=false}) or a composite of two reads cut in its middle ({@code split=true}, what the
 * decoder sees when an FPDU spans two socket reads). Megabytes are ULPDU octets.
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Fork(value = 1, jvmArgsAppend = {"-Dio.netty.leakDetection.level=disabled"})
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
public class MarkedCopyBenchmark {

    @State(Scope.Thread)
    public static class Encode {

        @Param({"64768", "1454"})
        public int ulpduSize;

        @Param({"true", "false"})
        public boolean markers;

        @Param({"legacy", "current"})
        public String impl;

        ByteBufAllocator alloc;
        ByteBuf ulpdu;
        long streamOffset;
        final CRC32C crc = new CRC32C();
        boolean legacy;
        double megabytesPerOp;

        @Setup(Level.Trial)
        public void setUp() {
            alloc = new EmbeddedChannel().alloc();
            ulpdu = Payloads.direct(alloc, ulpduSize, 5044);
            megabytesPerOp = ulpduSize / 1e6;
            legacy = switch (impl) {
                case "legacy" -> true;
                case "current" -> false;
                default -> throw new IllegalArgumentException("impl " + impl);
            };
            // The same octets as the legacy algorithm, over a whole marker cycle.
            for (long offset = 0; offset < 512L * 300; offset += 4 * 37) {
                ByteBuf a = legacyEncode(alloc, ulpdu, offset, markers, crc);
                ByteBuf b = MarkedCopy.encode(alloc, new byte[0], ulpdu, offset, markers, new CRC32C());
                boolean same = ByteBufUtil.equals(a, b);
                a.release();
                b.release();
                if (!same) {
                    throw new IllegalStateException("encoders differ at stream offset " + offset);
                }
            }
        }

        ByteBuf encode() {
            ByteBuf fpdu = legacy ? legacyEncode(alloc, ulpdu, streamOffset, markers, crc)
                    : MarkedCopy.encode(alloc, new byte[0], ulpdu, streamOffset, markers, crc);
            streamOffset += fpdu.readableBytes();
            return fpdu;
        }

        @TearDown(Level.Trial)
        public void tearDown() {
            ulpdu.release();
        }
    }

    @State(Scope.Thread)
    public static class Decode {

        @Param({"64768", "1454"})
        public int ulpduSize;

        @Param({"legacy", "current"})
        public String impl;

        @Param({"false", "true"})
        public boolean split;

        ByteBufAllocator alloc;
        ByteBuf ulpdu;
        ByteBuf[] fpdus;
        long[] offsets;
        int next;
        final CRC32C crc = new CRC32C();
        boolean legacy;
        double megabytesPerOp;

        @Setup(Level.Trial)
        public void setUp() {
            alloc = new EmbeddedChannel().alloc();
            ulpdu = Payloads.direct(alloc, ulpduSize, 5041);
            megabytesPerOp = ulpduSize / 1e6;
            legacy = switch (impl) {
                case "legacy" -> true;
                case "current" -> false;
                default -> throw new IllegalArgumentException("impl " + impl);
            };
            // FPDUs at 64 stream offsets spread over the marker cycle.
            fpdus = new ByteBuf[64];
            offsets = new long[64];
            long offset = 0;
            for (int i = 0; i < fpdus.length; i++) {
                ByteBuf fpdu = legacyEncode(alloc, ulpdu, offset, true, crc);
                if (split) {
                    int cut = fpdu.readableBytes() / 2 + 1;
                    CompositeByteBuf two = alloc.compositeDirectBuffer(2);
                    two.addComponent(true, Pipes.copy(alloc, fpdu, 0, cut));
                    two.addComponent(true, Pipes.copy(alloc, fpdu, cut, fpdu.readableBytes() - cut));
                    fpdu.release();
                    fpdu = two;
                }
                fpdus[i] = fpdu;
                offsets[i] = offset;
                offset += fpdu.readableBytes() + 4L * 29; // another FPDU in between: other offsets
                next = i;
                ByteBuf out = decode();
                boolean same = ByteBufUtil.equals(out, ulpdu);
                out.release();
                if (!same) {
                    throw new IllegalStateException("decode changed the ULPDU at " + offsets[i]);
                }
            }
            next = 0;
        }

        ByteBuf decode() {
            ByteBuf fpdu = fpdus[next];
            long offset = offsets[next];
            next = next + 1 == fpdus.length || fpdus[next + 1] == null ? 0 : next + 1;
            int wireLength = fpdu.readableBytes();
            int lead = isMarkerOffset(offset) ? MARKER_LENGTH : 0;
            int length = fpdu.getUnsignedShort(lead);
            int preCrc = 2 + length + MpaFrameEncoder.padLength(length);
            int inner = markersBeforeCrc(offset + lead, preCrc);
            ByteBuf out = alloc.directBuffer(length, length);
            boolean ok;
            if (legacy) {
                ok = legacyDecode(fpdu, 0, wireLength, offset, lead, length, inner, out, crc);
            } else {
                ok = MarkedCopy.decode(fpdu, 0, wireLength, offset, lead, length, inner, out, crc)
                        && (int) crc.getValue() == fpdu.getIntLE(wireLength - CRC_LENGTH);
            }
            if (!ok) {
                out.release();
                throw new IllegalStateException("CRC or marker error");
            }
            return out;
        }

        @TearDown(Level.Trial)
        public void tearDown() {
            ulpdu.release();
            for (ByteBuf b : fpdus) {
                if (b != null) {
                    b.release();
                }
            }
        }
    }

    /** NOT PRODUCTION CODE: MpaFrameEncoder.encodeContiguous as it was (no header, body not released). */
    static ByteBuf legacyEncode(ByteBufAllocator alloc, ByteBuf body, long streamOffset, boolean markers,
                                CRC32C crc) {
        int length = body.readableBytes();
        int pad = MpaFrameEncoder.padLength(length);
        long pos = streamOffset;
        int lead = markers && isMarkerOffset(pos) ? MARKER_LENGTH : 0;
        long fpduStart = pos + lead;
        int preCrc = 2 + length + pad;
        int inner = markers ? markersBeforeCrc(fpduStart, preCrc) : 0;
        int wireLength = lead + preCrc + MARKER_LENGTH * inner + CRC_LENGTH;
        ByteBuf out = alloc.directBuffer(wireLength, wireLength);
        if (lead != 0) {
            out.writeInt(0);
        }
        out.writeShort(length);
        pos = fpduStart + 2;
        int taken = 0;
        int remaining = length;
        while (remaining > 0) {
            long next = markers ? markerAtOrAfter(pos) : Long.MAX_VALUE;
            if (next == pos) {
                out.writeShort(0).writeShort((int) (pos - fpduStart));
                pos += MARKER_LENGTH;
                continue;
            }
            int chunk = (int) Math.min(remaining, next - pos);
            body.getBytes(body.readerIndex() + taken, out, out.writerIndex(), chunk);
            out.writerIndex(out.writerIndex() + chunk);
            taken += chunk;
            pos += chunk;
            remaining -= chunk;
        }
        out.writeZero(pad);
        pos += pad;
        if (markers && isMarkerOffset(pos)) {
            out.writeShort(0).writeShort((int) (pos - fpduStart));
        }
        crc.reset();
        ByteBufCrc32c.update(crc, out, 0, out.writerIndex());
        out.writeIntLE((int) crc.getValue());
        return out;
    }

    /** NOT PRODUCTION CODE: MpaFrameDecoder's CRC check, markersPointAt and ulpduWithoutMarkers as they were. */
    static boolean legacyDecode(ByteBuf in, int start, int wireLength, long streamOffset, int lead, int length,
                                int innerMarkers, ByteBuf ulpdu, CRC32C crc) {
        crc.reset();
        ByteBufCrc32c.update(crc, in, start, wireLength - CRC_LENGTH);
        if ((int) crc.getValue() != in.getIntLE(start + wireLength - CRC_LENGTH)) {
            return false;
        }
        long fpduStart = streamOffset + lead;
        if (lead != 0 && (in.getUnsignedShort(start + 2) & ~3) != 0) {
            return false;
        }
        long marker = markerAtOrAfter(fpduStart + 1);
        for (int i = 0; i < innerMarkers; i++, marker += MARKER_INTERVAL) {
            int index = start + (int) (marker - streamOffset);
            if ((in.getUnsignedShort(index + 2) & ~3) != marker - fpduStart) {
                return false;
            }
        }
        long pos = fpduStart + 2;
        int remaining = length;
        while (remaining > 0) {
            long next = markerAtOrAfter(pos);
            if (next == pos) {
                pos += MARKER_LENGTH;
                continue;
            }
            int chunk = (int) Math.min(remaining, next - pos);
            in.getBytes(start + (int) (pos - streamOffset), ulpdu, ulpdu.writerIndex(), chunk);
            ulpdu.writerIndex(ulpdu.writerIndex() + chunk);
            pos += chunk;
            remaining -= chunk;
        }
        return true;
    }

    @Benchmark
    public void encode(Encode s, Megabytes mb, Blackhole bh) {
        ByteBuf fpdu = s.encode();
        bh.consume(fpdu.getByte(fpdu.readableBytes() - 1));
        fpdu.release();
        mb.megabytes += s.megabytesPerOp;
    }

    @Benchmark
    public void decode(Decode s, Megabytes mb, Blackhole bh) {
        ByteBuf out = s.decode();
        bh.consume(out.getByte(out.readableBytes() - 1));
        out.release();
        mb.megabytes += s.megabytesPerOp;
    }
}
