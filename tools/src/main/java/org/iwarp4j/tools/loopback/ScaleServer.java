package org.iwarp4j.tools.loopback;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.iwarp4j.ddp.Access;
import org.iwarp4j.mpa.MpaSettings;
import org.iwarp4j.rdmap.CompletionQueue;
import org.iwarp4j.rdmap.Listener;
import org.iwarp4j.rdmap.MemoryRegion;
import org.iwarp4j.rdmap.ProtectionDomain;
import org.iwarp4j.rdmap.QueuePair;
import org.iwarp4j.rdmap.QueuePairSettings;
import org.iwarp4j.rdmap.Rnic;
import org.iwarp4j.rdmap.Transport;

/**
 * The server end of a {@link ScaleRun}: an RNIC listening on 127.0.0.1 that accepts {@code qps}
 * connections, each onto a new queue pair, and exposes one region of {@code qps * size} octets that every
 * client queue pair writes its own slice of. Runs inside the client's JVM, or as {@link #main} in a child JVM
 * so that each process holds one socket per queue pair.
 *
 * <p>The child speaks a line protocol: it prints {@code scale-server ready PORT STAG TO} once listening, then
 * answers commands read from stdin, one line each, with one line on stdout that starts with
 * {@code scale-server}: {@code established} (after every queue pair is established: used heap after GC before
 * the first connection and now), {@code placed} (octets placed so far and its event loops' CPU nanoseconds),
 * {@code verify} (how many slices hold the pattern), {@code exit}. End of stdin (the parent is gone) also ends
 * it. Any failure prints {@code scale-server error MESSAGE} and exits with status 1.
 */
final class ScaleServer implements AutoCloseable {

    static final String PREFIX = "scale-server ";

    private final int qps;
    private final int size;
    private final SimpleMeterRegistry meters = new SimpleMeterRegistry();
    private final ByteBuf memory;
    private final Rnic rnic;
    private final MemoryRegion target;
    private final Listener listener;
    private final CountDownLatch established;
    private final List<QueuePair> queuePairs = new ArrayList<>();

    ScaleServer(int qps, int size, MpaSettings mpa, Transport transport) throws Exception {
        this.qps = qps;
        this.size = size;
        this.established = new CountDownLatch(qps);
        memory = ByteBufAllocator.DEFAULT.directBuffer(qps * size).writeZero(qps * size);
        Rnic r = null;
        try {
            r = Rnic.builder().transport(transport).meterRegistry(meters).name("server")
                    // every connection comes from 127.0.0.1: the listener's caps must admit them all
                    .maxConnectionsPerListener(Math.max(Rnic.DEFAULT_MAX_CONNECTIONS_PER_LISTENER, qps))
                    .maxConnectionsPerAddress(Math.max(Rnic.DEFAULT_MAX_CONNECTIONS_PER_ADDRESS, qps)).build();
            Rnic rn = r;
            ProtectionDomain pd = rn.allocateProtectionDomain();
            target = pd.register(memory, EnumSet.allOf(Access.class));
            CompletionQueue cq = rn.createCompletionQueue(4 * qps);
            QueuePairSettings settings = QueuePairSettings.builder(pd, cq).sendQueueDepth(4).receiveQueueDepth(4)
                    .mpa(mpa).build();
            listener = rn.listen(new InetSocketAddress("127.0.0.1", 0), mpa, request -> {
                QueuePair qp = rn.createQueuePair(settings);
                synchronized (queuePairs) {
                    queuePairs.add(qp);
                }
                qp.established().thenRun(established::countDown);
                return request.accept(qp);
            });
            rnic = rn;
        } catch (Exception | Error e) {
            if (r != null) {
                r.close();
            }
            memory.release();
            throw e;
        }
    }

    InetSocketAddress address() {
        return (InetSocketAddress) listener.localAddress();
    }

    int stag() {
        return target.stag();
    }

    long baseTaggedOffset() {
        return target.baseTaggedOffset();
    }

    /** Waits until all {@code qps} accepted queue pairs are established. */
    void awaitEstablished(long timeout, TimeUnit unit) throws InterruptedException {
        if (!established.await(timeout, unit)) {
            throw new IllegalStateException(established.getCount() + " of " + qps
                    + " server queue pairs not established in " + timeout + " " + unit);
        }
    }

    /** Payload octets of tagged messages (the Writes) placed so far. */
    double placed() {
        return meters.get("iwarp.ddp.placed").tag("model", "tagged").counter().count();
    }

    /** How many slices hold {@code pattern}. */
    int verify(byte[] pattern) {
        ByteBuffer expected = ByteBuffer.wrap(pattern);
        int good = 0;
        for (int i = 0; i < qps; i++) {
            if (memory.nioBuffer(i * size, size).equals(expected)) {
                good++;
            }
        }
        return good;
    }

    @Override
    public void close() {
        try {
            listener.close();
            rnic.close();
        } finally {
            memory.release();
        }
    }

    /** The child process: {@code --qps N --size S --transport T} and LoopbackBench's MPA options. */
    public static void main(String[] args) {
        PrintStream out = System.out;
        int status = 0;
        try {
            Map<String, String> options = LoopbackBench.parse(args);
            int qps = Integer.parseInt(options.get("qps"));
            int size = Integer.parseInt(options.get("size"));
            FdBudget budget = FdBudget.of(qps, false);
            if (!budget.fits()) {
                throw new FdBudget.TooFewFileDescriptors(budget.describe(qps, false));
            }
            try (ScaleServer server = new ScaleServer(qps, size, LoopbackBench.mpa(options),
                    Transport.valueOf(options.get("transport")))) {
                long heapBefore = ScaleRun.usedHeapAfterGc();
                out.println(PREFIX + "ready " + server.address().getPort() + " " + server.stag() + " "
                        + server.baseTaggedOffset());
                out.flush();
                BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
                for (String line; (line = in.readLine()) != null && !line.equals("exit"); ) {
                    switch (line) {
                        case "established" -> {
                            server.awaitEstablished(120, TimeUnit.SECONDS);
                            out.println(PREFIX + "established " + heapBefore + " " + ScaleRun.usedHeapAfterGc());
                        }
                        case "placed" -> out.println(PREFIX + "placed " + (long) server.placed() + " "
                                + Measurement.eventLoopCpuNanos());
                        case "verify" -> out.println(PREFIX + "verified " + server.verify(ScaleRun.pattern(size)));
                        default -> throw new IllegalArgumentException("unknown command " + line);
                    }
                    out.flush();
                }
            }
        } catch (Throwable e) {
            out.println(PREFIX + "error " + (e instanceof FdBudget.TooFewFileDescriptors ? e.getMessage() : e.toString()));
            out.flush();
            status = 1;
        }
        System.exit(status); // the RNIC's threads are gone, but a stray non-daemon thread must not keep the child
    }
}
