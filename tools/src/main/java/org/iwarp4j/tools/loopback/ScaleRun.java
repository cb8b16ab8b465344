package org.iwarp4j.tools.loopback;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.ByteBufAllocatorMetricProvider;
import java.lang.management.ManagementFactory;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.iwarp4j.ddp.Access;
import org.iwarp4j.mpa.MpaSettings;
import org.iwarp4j.rdmap.CompletionQueue;
import org.iwarp4j.rdmap.Listener;
import org.iwarp4j.rdmap.MemoryRegion;
import org.iwarp4j.rdmap.ProtectionDomain;
import org.iwarp4j.rdmap.QueuePair;
import org.iwarp4j.rdmap.QueuePairSettings;
import org.iwarp4j.rdmap.Rnic;
import org.iwarp4j.rdmap.SendWorkRequest;
import org.iwarp4j.rdmap.Transport;
import org.iwarp4j.rdmap.WorkCompletion;

/**
 * Many queue pairs on one RNIC: {@code qps} connections between a server RNIC and a client RNIC
 * in this JVM (default event loops: one per core each). Reports the heap an idle queue pair costs
 * (heap used after GC before and after establishing them all, both ends counted, divided by the
 * number of queue pairs), then has every client queue pair RDMA-Write {@code size} octets into its
 * own slice of a server region, one in flight each, reposted from the completion listener, and
 * reports the aggregate placed throughput; finally checks every slice holds the written octets.
 */
final class ScaleRun {

    private ScaleRun() {
    }

    static void run(int qps, int size, double seconds, MpaSettings mpa, Transport transport) throws Exception {
        SimpleMeterRegistry serverMeters = new SimpleMeterRegistry();
        SimpleMeterRegistry clientMeters = new SimpleMeterRegistry();
        ByteBuf serverMemory = ByteBufAllocator.DEFAULT.directBuffer(qps * size).writeZero(qps * size);
        ByteBuf source = ByteBufAllocator.DEFAULT.directBuffer(size);
        byte[] pattern = new byte[size];
        new Random(7).nextBytes(pattern);
        source.writeBytes(pattern);
        try (Rnic serverRnic = Rnic.builder().transport(transport).meterRegistry(serverMeters).name("server")
                     // every connection comes from 127.0.0.1: the listener's caps must admit them all
                     .maxConnectionsPerListener(Math.max(Rnic.DEFAULT_MAX_CONNECTIONS_PER_LISTENER, qps))
                     .maxConnectionsPerAddress(Math.max(Rnic.DEFAULT_MAX_CONNECTIONS_PER_ADDRESS, qps)).build();
             Rnic clientRnic = Rnic.builder().transport(transport).meterRegistry(clientMeters).name("client").build()) {
            ProtectionDomain serverPd = serverRnic.allocateProtectionDomain();
            ProtectionDomain clientPd = clientRnic.allocateProtectionDomain();
            MemoryRegion target = serverPd.register(serverMemory, EnumSet.allOf(Access.class));
            MemoryRegion local = clientPd.register(source, EnumSet.allOf(Access.class));
            CompletionQueue serverCq = serverRnic.createCompletionQueue(4 * qps);
            CompletionQueue clientCq = clientRnic.createCompletionQueue(4 * qps);
            QueuePairSettings serverSettings = QueuePairSettings.builder(serverPd, serverCq).sendQueueDepth(4)
                    .receiveQueueDepth(4).mpa(mpa).build();
            QueuePairSettings clientSettings = QueuePairSettings.builder(clientPd, clientCq).sendQueueDepth(4)
                    .receiveQueueDepth(4).mpa(mpa).build();
            List<QueuePair> serverQps = new ArrayList<>();
            Listener listener = serverRnic.listen(new InetSocketAddress("127.0.0.1", 0), mpa, request -> {
                QueuePair qp = serverRnic.createQueuePair(serverSettings);
                synchronized (serverQps) {
                    serverQps.add(qp);
                }
                return request.accept(qp);
            });

            long heapBefore = usedHeapAfterGc();
            long directBefore = usedDirectMemory();
            long start = System.nanoTime();
            List<QueuePair> clients = new ArrayList<>(qps);
            List<CompletableFuture<QueuePair>> connected = new ArrayList<>(qps);
            for (int i = 0; i < qps; i++) {
                QueuePair qp = clientRnic.createQueuePair(clientSettings);
                clients.add(qp);
                connected.add(qp.connect(listener.localAddress()));
            }
            CompletableFuture.allOf(connected.toArray(new CompletableFuture[0])).get(120, TimeUnit.SECONDS);
            long connectNanos = System.nanoTime() - start;
            synchronized (serverQps) {
                for (QueuePair qp : serverQps) {
                    qp.established().get(60, TimeUnit.SECONDS);
                }
            }
            long heapAfter = usedHeapAfterGc();
            long directAfter = usedDirectMemory();
            System.out.printf("%d queue pairs connected in %.2f s (both ends in this JVM: %d queue pairs)%n", qps,
                    connectNanos / 1e9, 2 * qps);
            System.out.printf("heap per idle queue pair: %.1f KiB (%d -> %d octets used after GC, over %d QPs)%n",
                    (heapAfter - heapBefore) / 1024.0 / (2 * qps), heapBefore, heapAfter, 2 * qps);
            System.out.printf("allocator direct memory per idle queue pair: %.1f KiB%n",
                    (directAfter - directBefore) / 1024.0 / (2 * qps));

            AtomicBoolean stop = new AtomicBoolean();
            AtomicInteger outstanding = new AtomicInteger(qps);
            CompletableFuture<Void> drained = new CompletableFuture<>();
            java.util.Map<QueuePair, Integer> index = new java.util.IdentityHashMap<>();
            for (int i = 0; i < qps; i++) {
                index.put(clients.get(i), i);
            }
            clientCq.setListener((WorkCompletion c) -> {
                if (!c.isSuccess()) {
                    drained.completeExceptionally(new IllegalStateException("failed: " + c));
                } else if (!stop.get()) {
                    write(c.queuePair(), index.get(c.queuePair()), target, local, size);
                } else if (outstanding.decrementAndGet() == 0) {
                    drained.complete(null);
                }
            });
            for (int i = 0; i < qps; i++) {
                write(clients.get(i), i, target, local, size);
            }
            Measurement megabytes = Measurement.of(() -> serverMeters.get("iwarp.ddp.placed")
                    .tag("model", "tagged").counter().count(), 1, seconds);
            stop.set(true);
            drained.get(60, TimeUnit.SECONDS);
            // Each queue pair's last Write is handed to TCP, not yet placed: a Read of one octet fences it.
            for (int i = 0; i < qps; i++) {
                clients.get(i).postSend(SendWorkRequest.rdmaRead(-1, target.stag(),
                        target.baseTaggedOffset() + (long) i * size, local.sge(0, 1)));
            }
            clientCq.setListener(null);
            for (int i = 0; i < qps; i++) {
                WorkCompletion c = clientCq.poll(60, TimeUnit.SECONDS);
                if (c == null || !c.isSuccess()) {
                    throw new IllegalStateException("fence read failed: " + c);
                }
            }
            int good = 0;
            for (int i = 0; i < qps; i++) {
                if (serverMemory.nioBuffer(i * size, size).equals(source.nioBuffer(0, size))) {
                    good++;
                }
            }
            System.out.printf("aggregate RDMA Write throughput: %.1f MB/s (%.1f MB per event-loop CPU-second) over %d queue "
                    + "pairs (%d octets each, one in flight per queue pair); %d of %d target slices verified%n",
                    megabytes.megabytesPerSecond(), megabytes.megabytesPerCpuSecond(), qps, size, good, qps);
            List<CompletableFuture<QueuePair>> closed = new ArrayList<>();
            for (QueuePair qp : clients) {
                closed.add(qp.close());
            }
            CompletableFuture.allOf(closed.toArray(new CompletableFuture[0])).get(60, TimeUnit.SECONDS);
            listener.close();
            if (good != qps) {
                throw new IllegalStateException((qps - good) + " slices do not hold the written octets");
            }
        } finally {
            serverMemory.release();
            source.release();
        }
    }

    private static void write(QueuePair qp, int i, MemoryRegion target, MemoryRegion local, int size) {
        qp.postSend(SendWorkRequest.rdmaWrite(i, target.stag(), target.baseTaggedOffset() + (long) i * size,
                local.sge(0, size)));
    }

    private static long usedDirectMemory() {
        return ByteBufAllocator.DEFAULT instanceof ByteBufAllocatorMetricProvider
                ? ((ByteBufAllocatorMetricProvider) ByteBufAllocator.DEFAULT).metric().usedDirectMemory() : 0;
    }

    private static long usedHeapAfterGc() throws InterruptedException {
        for (int i = 0; i < 4; i++) {
            System.gc();
            Thread.sleep(100);
        }
        return ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
    }
}
