package org.iwarp4j.benchmarks;

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
 * The JDK's CRC32C (intrinsic on x86-64 and AArch64) over a direct ByteBuffer or a heap array of
 * 1 KiB or 64 KiB: the floor for MPA's CRC. Secondary score {@code :megabytes} is MB/s.
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Fork(1)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@State(Scope.Thread)
public class Crc32cBenchmark {

    @Param({"1024", "65536"})
    public int size;

    private final CRC32C crc = new CRC32C();
    private ByteBuffer direct;
    private byte[] heap;
    private double megabytesPerOp;

    @Setup(Level.Trial)
    public void setUp() {
        heap = Payloads.bytes(size, 32);
        direct = ByteBuffer.allocateDirect(size);
        direct.put(heap).flip();
        megabytesPerOp = size / 1e6;
        crc.update(heap);
        long a = crc.getValue();
        crc.reset();
        crc.update(direct);
        if (crc.getValue() != a) {
            throw new IllegalStateException("direct and heap CRC32C differ");
        }
    }

    @Benchmark
    public long direct(Megabytes mb) {
        crc.reset();
        direct.clear();
        crc.update(direct);
        mb.megabytes += megabytesPerOp;
        return crc.getValue();
    }

    @Benchmark
    public long heap(Megabytes mb) {
        crc.reset();
        crc.update(heap, 0, heap.length);
        mb.megabytes += megabytesPerOp;
        return crc.getValue();
    }
}
