package org.iwarp4j.rdmap;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.TimeUnit;
import org.iwarp4j.mpa.MpaSettings;
import org.junit.jupiter.api.Test;

/**
 * Many threads posting to one queue pair, and many queue pairs on one RNIC moving data at once.
 * Completions are collected by polling with timeouts.
 */
class ConcurrencyTest {

    private static final int THREADS = 8;
    private static final int SENDS_PER_THREAD = 500;

    @Test
    void eightThreadsPostingSendsToOneQueuePairGetEveryCompletionOnceInTheirOrder() throws Exception {
        // RDMAP-R-020, RDMAP-R-030 (one receive per Send, delivered in the order sent), RDMAP-R-031 (completions in submission
        // order: each thread's Sends complete in the order it posted them), RDMAP-R-044.
        int total = THREADS * SENDS_PER_THREAD;
        ByteBuf serverMemory = ByteBufAllocator.DEFAULT.directBuffer(total * 8).writeZero(total * 8);
        ByteBuf clientMemory = ByteBufAllocator.DEFAULT.directBuffer(total * 8).writeZero(total * 8);
        for (int t = 0; t < THREADS; t++) {
            for (int s = 0; s < SENDS_PER_THREAD; s++) {
                clientMemory.setInt((t * SENDS_PER_THREAD + s) * 8, t).setInt((t * SENDS_PER_THREAD + s) * 8 + 4, s);
            }
        }
        try {
            MemoryRegion[] serverMr = new MemoryRegion[1];
            try (RdmaPair pair = new RdmaPair(MpaSettings.builder().build(), b -> b.receiveQueueDepth(total),
                    b -> b.sendQueueDepth(total), server -> {
                        serverMr[0] = server.settings().protectionDomain().register(serverMemory, RdmaPair.ALL);
                        for (int i = 0; i < total; i++) {
                            server.postReceive(new ReceiveWorkRequest(i, serverMr[0].sge(i * 8L, 8)));
                        }
                    }, client -> { })) {
                MemoryRegion clientMr = pair.clientPd.register(clientMemory, RdmaPair.ALL);
                CyclicBarrier start = new CyclicBarrier(THREADS);
                List<CompletableFuture<Void>> posters = new ArrayList<>();
                for (int t = 0; t < THREADS; t++) {
                    int thread = t;
                    posters.add(CompletableFuture.runAsync(() -> {
                        try {
                            start.await(RdmaPair.WAIT_SECONDS, TimeUnit.SECONDS);
                        } catch (Exception e) {
                            throw new IllegalStateException(e);
                        }
                        for (int s = 0; s < SENDS_PER_THREAD; s++) {
                            int slot = thread * SENDS_PER_THREAD + s;
                            pair.client.postSend(SendWorkRequest.send(id(thread, s), clientMr.sge(slot * 8L, 8)));
                        }
                    }, runnable -> new Thread(runnable, "poster-" + thread).start()));
                }
                CompletableFuture.allOf(posters.toArray(new CompletableFuture[0]))
                        .get(RdmaPair.WAIT_SECONDS, TimeUnit.SECONDS);

                int[] nextSeq = new int[THREADS];
                Set<Long> seen = new HashSet<>();
                for (int i = 0; i < total; i++) {
                    WorkCompletion c = RdmaPair.next(pair.clientCq);
                    assertThat(c.status()).as(c.toString()).isEqualTo(WorkCompletionStatus.SUCCESS);
                    assertThat(seen.add(c.workRequestId())).as("exactly once: " + c).isTrue();
                    int thread = (int) (c.workRequestId() >>> 32);
                    int seq = (int) c.workRequestId();
                    assertThat(seq).as("thread %d's order", thread).isEqualTo(nextSeq[thread]++);
                }
                assertThat(pair.clientCq.poll()).isNull();

                // The receives filled in posting order; each thread's Sends arrived in its order.
                int[] arrivedSeq = new int[THREADS];
                Set<Long> received = new HashSet<>();
                for (int i = 0; i < total; i++) {
                    WorkCompletion c = RdmaPair.next(pair.serverCq);
                    assertThat(c.status()).as(c.toString()).isEqualTo(WorkCompletionStatus.SUCCESS);
                    assertThat(c.workRequestId()).isEqualTo(i);
                    assertThat(c.byteLength()).isEqualTo(8);
                    int thread = serverMemory.getInt(i * 8);
                    int seq = serverMemory.getInt(i * 8 + 4);
                    assertThat(seq).as("thread %d's order on the wire", thread).isEqualTo(arrivedSeq[thread]++);
                    assertThat(received.add(id(thread, seq))).isTrue();
                }
                assertThat(received).isEqualTo(seen);
                assertThat(pair.serverCq.poll()).isNull();
            }
        } finally {
            serverMemory.release();
            clientMemory.release();
        }
    }

    private static long id(int thread, int seq) {
        return (long) thread << 32 | seq;
    }

    @Test
    void twoHundredFiftySixQueuePairsOnOneRnicMoveDataAtOnce() throws Exception {
        // RDMAP-R-001 (one stream per connection), RDMAP-R-038 (one PD shared by 256 streams, each
        // within its own slice), RDMAP-R-043: each client Writes 64 KiB into its slice of one server
        // region and Reads it back; all connections busy at once, every octet verified.
        // One event loop per RNIC: with more, connections on different event loops place into the
        // same registered ByteBuf at once, which corrupts data (see the disabled test below).
        moveDataOverManyQueuePairs(1, 1);
    }

    @Test
    void twoHundredFiftySixQueuePairsOnRnicsWithTwoEventLoopsEach() throws Exception {
        // RDMAP-R-038, DDP-R-054 (no access outside the buffer: here, no octet placed at another's offset).
        // Connections on different event loops place into and send from one registered buffer at
        // once; this failed while placement and CRC went through Netty's cached internal NIO view.
        moveDataOverManyQueuePairs(2, 2);
    }

    private void moveDataOverManyQueuePairs(int serverThreads, int clientThreads) throws Exception {
        int connections = 256;
        int size = 64 * 1024;
        ByteBuf serverMemory = ByteBufAllocator.DEFAULT.directBuffer(connections * size).writeZero(connections * size);
        ByteBuf clientMemory = ByteBufAllocator.DEFAULT.directBuffer(2 * connections * size)
                .writeZero(2 * connections * size);
        byte[] data = new byte[connections * size];
        new Random(256).nextBytes(data);
        for (int i = 0; i < connections; i++) {
            clientMemory.setBytes(2 * i * size, data, i * size, size);
        }
        // All 256 connections come from 127.0.0.1: above the default cap per client address.
        Rnic serverRnic = Rnic.builder().eventLoopThreads(serverThreads).maxConnectionsPerAddress(connections).build();
        Rnic clientRnic = Rnic.builder().eventLoopThreads(clientThreads).build();
        try {
            ProtectionDomain serverPd = serverRnic.allocateProtectionDomain();
            CompletionQueue serverCq = serverRnic.createCompletionQueue(1024);
            MemoryRegion serverMr = serverPd.register(serverMemory, RdmaPair.ALL);
            ConcurrentLinkedQueue<QueuePair> accepted = new ConcurrentLinkedQueue<>();
            MpaSettings mpa = MpaSettings.builder().build();
            try (Listener listener = serverRnic.listen(new InetSocketAddress("127.0.0.1", 0), mpa, request -> {
                QueuePair qp = serverRnic.createQueuePair(QueuePairSettings.builder(serverPd, serverCq).build());
                accepted.add(qp);
                return request.accept(qp);
            })) {
                ProtectionDomain clientPd = clientRnic.allocateProtectionDomain();
                CompletionQueue clientCq = clientRnic.createCompletionQueue(2 * connections);
                MemoryRegion clientMr = clientPd.register(clientMemory, RdmaPair.ALL);
                List<QueuePair> clients = new ArrayList<>();
                List<CompletableFuture<QueuePair>> connected = new ArrayList<>();
                for (int i = 0; i < connections; i++) {
                    QueuePair qp = clientRnic.createQueuePair(QueuePairSettings.builder(clientPd, clientCq).build());
                    clients.add(qp);
                    connected.add(qp.connect(listener.localAddress()));
                }
                CompletableFuture.allOf(connected.toArray(new CompletableFuture[0]))
                        .get(RdmaPair.WAIT_SECONDS, TimeUnit.SECONDS);
                assertThat(accepted).hasSize(connections);

                for (int i = 0; i < connections; i++) {
                    long target = serverMr.baseTaggedOffset() + (long) i * size;
                    clients.get(i).postSend(
                            SendWorkRequest.rdmaWrite(2L * i, serverMr.stag(), target, clientMr.sge(2L * i * size, size)),
                            SendWorkRequest.rdmaRead(2L * i + 1, serverMr.stag(), target,
                                    clientMr.sge((2L * i + 1) * size, size)));
                }
                boolean[] done = new boolean[2 * connections];
                for (int n = 0; n < 2 * connections; n++) {
                    WorkCompletion c = RdmaPair.next(clientCq);
                    assertThat(c.status()).as(c.toString()).isEqualTo(WorkCompletionStatus.SUCCESS);
                    int id = (int) c.workRequestId();
                    assertThat(done[id]).as("once: " + c).isFalse();
                    if (id % 2 == 1) {
                        assertThat(done[id - 1]).as("the Write before the Read on QP " + id / 2).isTrue();
                    }
                    done[id] = true;
                }
                assertThat(clientCq.poll()).isNull();
                for (int i = 0; i < connections; i++) {
                    assertThat(RdmaPair.sameOctets(serverMemory, i * size, clientMemory, 2 * i * size, size))
                            .as("server slice %d", i).isTrue();
                    assertThat(RdmaPair.sameOctets(clientMemory, (2 * i + 1) * size, clientMemory, 2 * i * size, size))
                            .as("read back %d", i).isTrue();
                }
                assertThat(serverCq.poll()).as("Writes and Reads are not delivered to the target").isNull();
                for (QueuePair qp : accepted) {
                    assertThat(qp.state()).isEqualTo(QueuePairState.RTS);
                }

                List<CompletableFuture<QueuePair>> closed = new ArrayList<>();
                clients.forEach(qp -> closed.add(qp.close()));
                accepted.forEach(qp -> closed.add(qp.closeFuture()));
                CompletableFuture.allOf(closed.toArray(new CompletableFuture[0]))
                        .get(RdmaPair.WAIT_SECONDS, TimeUnit.SECONDS);
            }
        } finally {
            clientRnic.close();
            serverRnic.close();
            serverMemory.release();
            clientMemory.release();
        }
    }
}
