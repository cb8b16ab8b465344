package org.iwarp4j.benchmarks;

import io.netty.util.internal.PlatformDependent;
import java.nio.ByteBuffer;
import java.util.concurrent.TimeUnit;
import java.util.zip.CRC32C;
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
import org.openjdk.jmh.annotations.Warmup;

/**
 * The receiving loop's per-octet work at 1 MiB on the ordinary (copying) path, in isolation: a
 * read of 256 KiB lands in a receive buffer (the kernel's copy, modelled by a copy from a "socket"
 * buffer), then for each of its four 64 KiB FPDUs the CRC32c runs over the FPDU and DDP copies the
 * payload into a 1 MiB registered region (the next quarter each time, as a 1 MiB RDMA Write does).
 *
 * <ul>
 *   <li>{@code twoPasses}: as the stack does it, the whole FPDU's CRC first (MPA), then the whole
 *       payload's copy (DDP): the copy reads the FPDU again, from L2 for all but its last 32 KiB.
 *   <li>{@code fused}: the CRC and the copy chunk by chunk ({@code chunk} octets), so the copy
 *       reads what the CRC has just brought into L1: one pass over the receive buffer.
 *   <li>{@code crcOnly}, {@code copyOnly}: each alone, for the shares.
 * </ul>
 *
 * <p>Secondary score {@code :cpuMegabytes} is MB of FPDU octets per second of this thread's CPU time.
 * It bounds what fusing the two would save (it cannot be done without placing before the CRC is
 * checked, which only direct placement does, see {@code MpaFrameDecoder}).
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Fork(1)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@State(Scope.Thread)
public class CrcCopyPassesBenchmark {

    private static final int READ = 256 * 1024;
    private static final int FPDU = 64 * 1024;
    private static final int REGION = 1024 * 1024;

    @Param({"4096", "16384"})
    public int chunk;

    private final CRC32C crc = new CRC32C();
    private ByteBuffer socket;
    private ByteBuffer receive;
    private ByteBuffer region;
    private long socketAddress;
    private long receiveAddress;
    private long regionAddress;
    private int regionOffset;
    private double megabytesPerOp;

    @Setup(Level.Trial)
    public void setUp() {
        if (!PlatformDependent.hasUnsafe()) {
            // Its copies go by address, as MemoryPlacement's do with Unsafe (docs/jdk.md).
            throw new IllegalStateException("needs Netty's Unsafe: on Java 24 or later run with "
                    + "-Dio.netty.noUnsafe=false --sun-misc-unsafe-memory-access=allow");
        }
        socket = ByteBuffer.allocateDirect(READ);
        socket.put(Payloads.bytes(READ, 32)).flip();
        receive = ByteBuffer.allocateDirect(READ);
        region = ByteBuffer.allocateDirect(REGION);
        socketAddress = PlatformDependent.directBufferAddress(socket);
        receiveAddress = PlatformDependent.directBufferAddress(receive);
        regionAddress = PlatformDependent.directBufferAddress(region);
        megabytesPerOp = READ / 1e6;
        if (fused(new Megabytes()) != twoPasses(new Megabytes())) {
            throw new IllegalStateException("fused and two-pass CRCs differ");
        }
    }

    /** The kernel's copy into the receive buffer, the same in every variant. */
    private void read() {
        PlatformDependent.copyMemory(socketAddress, receiveAddress, READ);
    }

    private long nextTarget() {
        long to = regionAddress + regionOffset;
        regionOffset = (regionOffset + FPDU) % REGION;
        return to;
    }

    private void crc(int offset, int length) {
        receive.limit(offset + length).position(offset);
        crc.update(receive);
    }

    /**
     * The FPDUs of one read, {@code piece} octets at a time: the CRC of a piece (if {@code crcOn}),
     * then its copy into the region (if {@code copyOn}). With {@code piece} = the FPDU this is the
     * stack's order, the whole FPDU's CRC and then its whole copy; smaller pieces fuse the two.
     */
    private long fpdus(Megabytes mb, boolean crcOn, boolean copyOn, int piece) {
        read();
        long sum = 0;
        for (int f = 0; f < READ; f += FPDU) {
            crc.reset();
            long to = copyOn ? nextTarget() : 0;
            for (int c = 0; c < FPDU; c += piece) {
                if (crcOn) {
                    crc(f + c, piece);
                }
                if (copyOn) {
                    PlatformDependent.copyMemory(receiveAddress + f + c, to + c, piece);
                }
            }
            sum += crc.getValue();
        }
        mb.megabytes += megabytesPerOp;
        return sum;
    }

    @Benchmark
    public long twoPasses(Megabytes mb) {
        return fpdus(mb, true, true, FPDU);
    }

    @Benchmark
    public long fused(Megabytes mb) {
        return fpdus(mb, true, true, chunk);
    }

    @Benchmark
    public long crcOnly(Megabytes mb) {
        return fpdus(mb, true, false, FPDU);
    }

    @Benchmark
    public long copyOnly(Megabytes mb) {
        return fpdus(mb, false, true, FPDU);
    }

    @Benchmark
    public long readOnly(Megabytes mb) {
        read();
        mb.megabytes += megabytesPerOp;
        return regionOffset;
    }
}
