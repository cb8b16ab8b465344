package org.iwarp4j.tools.loopback;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.ByteBufAllocatorMetricProvider;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.lang.management.ManagementFactory;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.iwarp4j.ddp.Access;
import org.iwarp4j.mpa.MpaSettings;
import org.iwarp4j.rdmap.CompletionQueue;
import org.iwarp4j.rdmap.MemoryRegion;
import org.iwarp4j.rdmap.ProtectionDomain;
import org.iwarp4j.rdmap.QueuePair;
import org.iwarp4j.rdmap.QueuePairSettings;
import org.iwarp4j.rdmap.Rnic;
import org.iwarp4j.rdmap.SendWorkRequest;
import org.iwarp4j.rdmap.Transport;
import org.iwarp4j.rdmap.WorkCompletion;

/**
 * Many queue pairs on one RNIC: {@code qps} connections between a server RNIC ({@link ScaleServer}) and a
 * client RNIC (default event loops: one per core each). Reports the connect time and rate and the heap an
 * idle queue pair costs (heap used after GC before and after establishing them all, divided by the number of
 * queue pairs), then has every client queue pair RDMA-Write {@code size} octets into its own slice of a
 * server region, one in flight each, reposted from the completion listener, and reports the aggregate placed
 * throughput; finally checks every slice holds the written octets.
 *
 * <p>Both RNICs live in this JVM, which needs two sockets per queue pair; with {@code serverProcess} the
 * server RNIC runs in a child JVM on the same class path (ports, counters and verification exchanged over its
 * stdin and stdout, see {@link ScaleServer}), so each process needs one socket per queue pair. The child is
 * stopped when the run ends, whether it succeeded or not. Either way the file descriptors the run needs are
 * checked against the limit before the first connection ({@link FdBudget}).
 */
final class ScaleRun {

    /** Figures of a run. {@code serverHeapPerQp} is NaN in one JVM (the client figure covers both ends). */
    record Result(int qps, double connectSeconds, double clientHeapPerQpKib, double serverHeapPerQpKib,
                  double megabytesPerSecond, int verified, long serverPid) {
    }

    private ScaleRun() {
    }

    static Result run(int qps, int size, double seconds, Map<String, String> options, Transport transport,
                      boolean serverProcess) throws Exception {
        return run(qps, size, 1, seconds, options, transport, serverProcess, System.out);
    }

    static Result run(int qps, int size, double warmupSeconds, double seconds, Map<String, String> options,
                      Transport transport, boolean serverProcess, PrintStream out) throws Exception {
        FdBudget budget = FdBudget.of(qps, !serverProcess);
        if (!budget.fits()) {
            throw new FdBudget.TooFewFileDescriptors(budget.describe(qps, !serverProcess));
        }
        out.println(budget.describe(qps, !serverProcess));
        MpaSettings mpa = LoopbackBench.mpa(options);
        SimpleMeterRegistry clientMeters = new SimpleMeterRegistry();
        ByteBuf source = ByteBufAllocator.DEFAULT.directBuffer(size);
        byte[] pattern = pattern(size);
        source.writeBytes(pattern);
        try (Server server = serverProcess ? ChildServer.start(qps, size, options, transport, out)
                : new InProcessServer(new ScaleServer(qps, size, mpa, transport));
             Rnic clientRnic = Rnic.builder().transport(transport).meterRegistry(clientMeters).name("client").build()) {
            ProtectionDomain clientPd = clientRnic.allocateProtectionDomain();
            MemoryRegion local = clientPd.register(source, EnumSet.allOf(Access.class));
            CompletionQueue clientCq = clientRnic.createCompletionQueue(4 * qps);
            QueuePairSettings clientSettings = QueuePairSettings.builder(clientPd, clientCq).sendQueueDepth(4)
                    .receiveQueueDepth(4).mpa(mpa).build();

            long heapBefore = usedHeapAfterGc();
            long directBefore = usedDirectMemory();
            long start = System.nanoTime();
            List<QueuePair> clients = new ArrayList<>(qps);
            List<CompletableFuture<QueuePair>> connected = new ArrayList<>(qps);
            for (int i = 0; i < qps; i++) {
                QueuePair qp = clientRnic.createQueuePair(clientSettings);
                clients.add(qp);
                connected.add(qp.connect(server.address()));
            }
            CompletableFuture.allOf(connected.toArray(new CompletableFuture[0])).get(300, TimeUnit.SECONDS);
            long connectNanos = System.nanoTime() - start;
            long[] serverHeap = server.awaitEstablished();
            long heapAfter = usedHeapAfterGc();
            long directAfter = usedDirectMemory();
            double connectSeconds = connectNanos / 1e9;
            double clientHeapPerQp;
            double serverHeapPerQp = Double.NaN;
            if (serverProcess) {
                out.printf("%d queue pairs connected in %.2f s, %.0f connections/s (client RNIC in this JVM, server"
                        + " RNIC in child process %d)%n", qps, connectSeconds, qps / connectSeconds, server.pid());
                clientHeapPerQp = (heapAfter - heapBefore) / 1024.0 / qps;
                serverHeapPerQp = (serverHeap[1] - serverHeap[0]) / 1024.0 / qps;
                out.printf("heap per idle queue pair: client %.1f KiB (%d -> %d octets used after GC, over %d QPs),"
                        + " server %.1f KiB (child JVM: %d -> %d over %d QPs); mean of both ends %.1f KiB%n",
                        clientHeapPerQp, heapBefore, heapAfter, qps, serverHeapPerQp, serverHeap[0], serverHeap[1], qps,
                        (clientHeapPerQp + serverHeapPerQp) / 2);
                out.printf("allocator direct memory per idle queue pair: %.1f KiB (client)%n",
                        (directAfter - directBefore) / 1024.0 / qps);
            } else {
                out.printf("%d queue pairs connected in %.2f s, %.0f connections/s (both ends in this JVM: %d queue"
                        + " pairs)%n", qps, connectSeconds, qps / connectSeconds, 2 * qps);
                clientHeapPerQp = (heapAfter - heapBefore) / 1024.0 / (2 * qps);
                out.printf("heap per idle queue pair: %.1f KiB (%d -> %d octets used after GC, over %d QPs)%n",
                        clientHeapPerQp, heapBefore, heapAfter, 2 * qps);
                out.printf("allocator direct memory per idle queue pair: %.1f KiB%n",
                        (directAfter - directBefore) / 1024.0 / (2 * qps));
            }

            AtomicBoolean stop = new AtomicBoolean();
            AtomicInteger outstanding = new AtomicInteger(qps);
            CompletableFuture<Void> drained = new CompletableFuture<>();
            Map<QueuePair, Integer> index = new IdentityHashMap<>();
            for (int i = 0; i < qps; i++) {
                index.put(clients.get(i), i);
            }
            int stag = server.stag();
            long base = server.baseTaggedOffset();
            clientCq.setListener((WorkCompletion c) -> {
                if (!c.isSuccess()) {
                    drained.completeExceptionally(new IllegalStateException("failed: " + c));
                } else if (!stop.get()) {
                    write(c.queuePair(), index.get(c.queuePair()), stag, base, local, size);
                } else if (outstanding.decrementAndGet() == 0) {
                    drained.complete(null);
                }
            });
            for (int i = 0; i < qps; i++) {
                write(clients.get(i), i, stag, base, local, size);
            }
            Measurement megabytes = server.measure(warmupSeconds, seconds);
            stop.set(true);
            drained.get(60, TimeUnit.SECONDS);
            // Each queue pair's last Write is handed to TCP, not yet placed: a Read of one octet fences it.
            for (int i = 0; i < qps; i++) {
                clients.get(i).postSend(SendWorkRequest.rdmaRead(-1, stag, base + (long) i * size, local.sge(0, 1)));
            }
            clientCq.setListener(null);
            for (int i = 0; i < qps; i++) {
                WorkCompletion c = clientCq.poll(60, TimeUnit.SECONDS);
                if (c == null || !c.isSuccess()) {
                    throw new IllegalStateException("fence read failed: " + c);
                }
            }
            int good = server.verify(pattern);
            out.printf("aggregate RDMA Write throughput: %.1f MB/s (%.1f MB per event-loop CPU-second%s) over %d queue "
                    + "pairs (%d octets each, one in flight per queue pair); %d of %d target slices verified%n",
                    megabytes.megabytesPerSecond(), megabytes.megabytesPerCpuSecond(),
                    serverProcess ? ", both processes' event loops" : "", qps, size, good, qps);
            List<CompletableFuture<QueuePair>> closed = new ArrayList<>();
            for (QueuePair qp : clients) {
                closed.add(qp.close());
            }
            CompletableFuture.allOf(closed.toArray(new CompletableFuture[0])).get(120, TimeUnit.SECONDS);
            if (good != qps) {
                throw new IllegalStateException((qps - good) + " slices do not hold the written octets");
            }
            return new Result(qps, connectSeconds, clientHeapPerQp, serverHeapPerQp, megabytes.megabytesPerSecond(),
                    good, server.pid());
        } finally {
            source.release();
        }
    }

    /** The octets every queue pair writes, the same in both processes. */
    static byte[] pattern(int size) {
        byte[] pattern = new byte[size];
        new Random(7).nextBytes(pattern);
        return pattern;
    }

    private static void write(QueuePair qp, int i, int stag, long base, MemoryRegion local, int size) {
        qp.postSend(SendWorkRequest.rdmaWrite(i, stag, base + (long) i * size, local.sge(0, size)));
    }

    private static long usedDirectMemory() {
        return ByteBufAllocator.DEFAULT instanceof ByteBufAllocatorMetricProvider
                ? ((ByteBufAllocatorMetricProvider) ByteBufAllocator.DEFAULT).metric().usedDirectMemory() : 0;
    }

    static long usedHeapAfterGc() throws InterruptedException {
        for (int i = 0; i < 4; i++) {
            System.gc();
            Thread.sleep(100);
        }
        return ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
    }

    /** The server end as the client sees it. */
    interface Server extends AutoCloseable {
        InetSocketAddress address();

        int stag();

        long baseTaggedOffset();

        /** Waits for every server queue pair; the server's own heap before and after, or nothing in one JVM. */
        long[] awaitEstablished() throws Exception;

        /** Placed Write octets over a measured interval after a warm-up. */
        Measurement measure(double warmupSeconds, double seconds) throws Exception;

        int verify(byte[] pattern) throws Exception;

        long pid();

        @Override
        void close() throws Exception;
    }

    private record InProcessServer(ScaleServer server) implements Server {
        @Override
        public InetSocketAddress address() {
            return server.address();
        }

        @Override
        public int stag() {
            return server.stag();
        }

        @Override
        public long baseTaggedOffset() {
            return server.baseTaggedOffset();
        }

        @Override
        public long[] awaitEstablished() throws InterruptedException {
            server.awaitEstablished(120, TimeUnit.SECONDS);
            return null;
        }

        @Override
        public Measurement measure(double warmupSeconds, double seconds) throws InterruptedException {
            return Measurement.of(server::placed, warmupSeconds, seconds);
        }

        @Override
        public int verify(byte[] pattern) {
            return server.verify(pattern);
        }

        @Override
        public long pid() {
            return ProcessHandle.current().pid();
        }

        @Override
        public void close() {
            server.close();
        }
    }

    /** A {@link ScaleServer} in a child JVM, driven over its stdin and stdout. */
    static final class ChildServer implements Server {
        private static final String EOF = "\0eof";

        final Process process;
        final PrintStream commands;
        private final BlockingQueue<String> replies = new LinkedBlockingQueue<>();
        private InetSocketAddress address;
        private int stag;
        private long base;

        private ChildServer(Process process, PrintStream out) {
            this.process = process;
            this.commands = new PrintStream(process.getOutputStream(), true, StandardCharsets.UTF_8);
            Thread reader = new Thread(() -> {
                try (BufferedReader in = new BufferedReader(new InputStreamReader(process.getInputStream(),
                        StandardCharsets.UTF_8))) {
                    for (String line; (line = in.readLine()) != null; ) {
                        if (line.startsWith(ScaleServer.PREFIX)) {
                            replies.add(line.substring(ScaleServer.PREFIX.length()));
                        } else {
                            out.println("[server] " + line);
                        }
                    }
                } catch (IOException e) {
                    // the child is gone: EOF below says so
                } finally {
                    replies.add(EOF);
                }
            }, "scale-server-stdout");
            reader.setDaemon(true);
            reader.start();
        }

        static ChildServer start(int qps, int size, Map<String, String> options, Transport transport,
                                 PrintStream out) throws Exception {
            List<String> command = new ArrayList<>();
            command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
            // the heap and direct-memory caps and Netty's settings (the leak detector in tests) carry over
            for (String arg : ManagementFactory.getRuntimeMXBean().getInputArguments()) {
                if (arg.startsWith("-Xmx") || arg.startsWith("-Xms") || arg.startsWith("-XX:MaxDirectMemorySize")
                        || arg.startsWith("-Dio.netty.")) {
                    command.add(arg);
                }
            }
            // the child runs everything on its class path; a parent on the module path (a test) passes both
            StringBuilder path = new StringBuilder(System.getProperty("java.class.path", ""));
            String modulePath = System.getProperty("jdk.module.path");
            if (modulePath != null && !modulePath.isEmpty()) {
                path.append(path.length() == 0 ? "" : java.io.File.pathSeparator).append(modulePath);
            }
            command.add("-cp");
            command.add(path.toString());
            command.add(ScaleServer.class.getName());
            command.addAll(List.of("--qps", Integer.toString(qps), "--size", Integer.toString(size), "--transport",
                    transport.name()));
            for (String flag : List.of("markers", "no-crc")) {
                if (options.containsKey(flag)) {
                    command.add("--" + flag);
                }
            }
            if (options.containsKey("mulpdu")) {
                command.addAll(List.of("--mulpdu", options.get("mulpdu")));
            }
            Process process = new ProcessBuilder(command).redirectError(ProcessBuilder.Redirect.INHERIT).start();
            ChildServer child = new ChildServer(process, out);
            try {
                String[] ready = child.reply("ready", 60);
                child.address = new InetSocketAddress("127.0.0.1", Integer.parseInt(ready[1]));
                child.stag = Integer.parseInt(ready[2]);
                child.base = Long.parseLong(ready[3]);
                return child;
            } catch (Exception | Error e) {
                child.close();
                throw e;
            }
        }

        /** Sends {@code command} (unless null) and waits for the reply that starts with {@code expected}. */
        private String[] request(String command, String expected, long timeoutSeconds) throws Exception {
            commands.println(command);
            if (commands.checkError()) {
                throw new IllegalStateException("server process stopped reading commands (exit status "
                        + exitStatus() + ")");
            }
            return reply(expected, timeoutSeconds);
        }

        private String[] reply(String expected, long timeoutSeconds) throws Exception {
            String line = replies.poll(timeoutSeconds, TimeUnit.SECONDS);
            if (line == null) {
                throw new IllegalStateException("no '" + expected + "' from the server process in " + timeoutSeconds + " s");
            }
            if (line.equals(EOF)) {
                replies.add(EOF);
                throw new IllegalStateException("server process ended before '" + expected + "' (exit status "
                        + exitStatus() + ")");
            }
            if (line.startsWith("error ")) {
                throw new IllegalStateException("server process: " + line.substring(6));
            }
            String[] words = line.split(" ");
            if (!words[0].equals(expected)) {
                throw new IllegalStateException("server process said '" + line + "', expected '" + expected + "'");
            }
            return words;
        }

        private String exitStatus() throws InterruptedException {
            return process.waitFor(5, TimeUnit.SECONDS) ? Integer.toString(process.exitValue()) : "still running";
        }

        @Override
        public InetSocketAddress address() {
            return address;
        }

        @Override
        public int stag() {
            return stag;
        }

        @Override
        public long baseTaggedOffset() {
            return base;
        }

        @Override
        public long[] awaitEstablished() throws Exception {
            String[] r = request("established", "established", 180);
            return new long[] {Long.parseLong(r[1]), Long.parseLong(r[2])};
        }

        private long[] placed() throws Exception {
            String[] r = request("placed", "placed", 30);
            return new long[] {Long.parseLong(r[1]), Long.parseLong(r[2])};
        }

        @Override
        public Measurement measure(double warmupSeconds, double seconds) throws Exception {
            Thread.sleep((long) (warmupSeconds * 1000));
            long[] before = placed();
            long cpuBefore = Measurement.eventLoopCpuNanos();
            long start = System.nanoTime();
            Thread.sleep((long) (seconds * 1000));
            long[] after = placed();
            long cpu = Measurement.eventLoopCpuNanos() - cpuBefore + after[1] - before[1];
            long nanos = System.nanoTime() - start;
            double megabytes = (after[0] - before[0]) / 1e6;
            return new Measurement(megabytes / (nanos / 1e9), megabytes / (cpu / 1e9));
        }

        @Override
        public int verify(byte[] pattern) throws Exception {
            return Integer.parseInt(request("verify", "verified", 60)[1]);
        }

        @Override
        public long pid() {
            return process.pid();
        }

        /** Asks the child to exit, then makes sure it has: destroyed after 30 s, forcibly after 10 more. */
        @Override
        public void close() throws InterruptedException {
            try {
                commands.println("exit");
                commands.close();
            } catch (UncheckedIOException e) {
                // the child has already gone
            }
            if (!process.waitFor(30, TimeUnit.SECONDS)) {
                process.destroy();
                if (!process.waitFor(10, TimeUnit.SECONDS)) {
                    process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
                }
            }
        }
    }
}
