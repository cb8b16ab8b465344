package org.iwarp4j.tools.loopback;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.iwarp4j.mpa.MpaSettings;
import org.iwarp4j.rdmap.SendWorkRequest;
import org.iwarp4j.rdmap.Transport;
import org.iwarp4j.rdmap.WorkCompletion;

/**
 * RDMA Writes (client to server) or RDMA Reads (server's memory to the client) of one size, kept
 * {@code depth} in flight by the client's completion listener on its event loop (each completion
 * posts the next request, as perftest's bandwidth tests do). Throughput is what DDP placed at the
 * data's destination ({@code iwarp.ddp.placed}), sampled after a warm-up.
 */
final class RdmaStream {

    private RdmaStream() {
    }

    static Measurement run(boolean read, int size, int depth, double warmup, double seconds, MpaSettings mpa,
                      Transport transport) throws Exception {
        try (RnicPair pair = new RnicPair(transport, mpa, size, depth)) {
            pair.connect();
            long remoteTo = pair.serverRegion.baseTaggedOffset();
            int remoteStag = pair.serverRegion.stag();
            AtomicInteger outstanding = new AtomicInteger(depth);
            CompletableFuture<Void> drained = new CompletableFuture<>();
            AtomicBoolean stop = new AtomicBoolean();
            AtomicLong id = new AtomicLong();
            Runnable postOne = () -> pair.client.postSend(read
                    ? SendWorkRequest.rdmaRead(id.getAndIncrement(), remoteStag, remoteTo, pair.clientRegion.sge(0, size))
                    : SendWorkRequest.rdmaWrite(id.getAndIncrement(), remoteStag, remoteTo,
                            pair.clientRegion.sge(0, size)));
            pair.clientCq.setListener((WorkCompletion c) -> {
                if (!c.isSuccess()) {
                    drained.completeExceptionally(new IllegalStateException("failed: " + c));
                    return;
                }
                if (!stop.get()) {
                    postOne.run();
                } else if (outstanding.decrementAndGet() == 0) {
                    drained.complete(null);
                }
            });
            for (int i = 0; i < depth; i++) {
                postOne.run();
            }
            Measurement megabytes = Measurement.of(() -> pair.placed(!read, "tagged"), warmup, seconds);
            stop.set(true);
            drained.get(30, TimeUnit.SECONDS);
            return megabytes;
        }
    }
}
