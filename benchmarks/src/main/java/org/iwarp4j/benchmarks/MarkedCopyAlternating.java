package org.iwarp4j.benchmarks;

import io.netty.buffer.ByteBuf;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;

/**
 * {@link MarkedCopyBenchmark}'s cases without JMH, for a loaded machine: JMH runs one parameter
 * set after the other, so a change of load between them shows as a difference between the
 * algorithms. Here {@code legacy}, {@code current} and {@code legacy} again (a control: its ratio
 * to the first shows the noise) take turns in bursts of about 20 MB, and each is timed by the
 * thread's CPU time; the first third of the rounds is warm-up.
 *
 * <pre>java -Dio.netty.leakDetection.level=disabled -cp benchmarks/target/benchmarks.jar \
 *     org.iwarp4j.benchmarks.MarkedCopyAlternating encode|decode ULPDU_SIZE MARKERS|SPLIT ROUNDS</pre>
 */
public final class MarkedCopyAlternating {

    private MarkedCopyAlternating() {
    }

    public static void main(String[] args) {
        ThreadMXBean threads = ManagementFactory.getThreadMXBean();
        boolean decode = args[0].equals("decode");
        int size = Integer.parseInt(args[1]);
        boolean flag = Boolean.parseBoolean(args[2]); // markers (encode) or split (decode)
        int rounds = Integer.parseInt(args[3]);
        String[] impls = {"legacy", "current", "legacy"};
        MarkedCopyBenchmark.Encode[] encoders = new MarkedCopyBenchmark.Encode[3];
        MarkedCopyBenchmark.Decode[] decoders = new MarkedCopyBenchmark.Decode[3];
        for (int i = 0; i < 3; i++) {
            if (decode) {
                decoders[i] = new MarkedCopyBenchmark.Decode();
                decoders[i].ulpduSize = size;
                decoders[i].impl = impls[i];
                decoders[i].split = flag;
                decoders[i].setUp();
            } else {
                encoders[i] = new MarkedCopyBenchmark.Encode();
                encoders[i].ulpduSize = size;
                encoders[i].impl = impls[i];
                encoders[i].markers = flag;
                encoders[i].setUp();
            }
        }
        long[] cpu = new long[3];
        long[] ops = new long[3];
        int burst = Math.max(200, 20_000_000 / size);
        long sink = 0;
        for (int r = 0; r < rounds; r++) {
            for (int k = 0; k < 3; k++) {
                int i = (r + k) % 3;
                long start = threads.getCurrentThreadCpuTime();
                for (int j = 0; j < burst; j++) {
                    ByteBuf out = decode ? decoders[i].decode() : encoders[i].encode();
                    sink += out.getByte(out.readableBytes() - 1);
                    out.release();
                }
                if (r >= rounds / 3) {
                    cpu[i] += threads.getCurrentThreadCpuTime() - start;
                    ops[i] += burst;
                }
            }
        }
        StringBuilder line = new StringBuilder(args[0] + " ulpduSize=" + size + (decode ? " split=" : " markers=")
                + flag + ":");
        double first = (double) cpu[0] / ops[0];
        for (int i = 0; i < 3; i++) {
            double ns = (double) cpu[i] / ops[i];
            line.append(String.format(" %s %.0f ns/op (%.2fx)", impls[i], ns, first / ns));
        }
        System.out.println(line + (sink == 42 ? " " : ""));
        for (int i = 0; i < 3; i++) {
            (decode ? (Runnable) decoders[i]::tearDown : (Runnable) encoders[i]::tearDown).run();
        }
    }
}
