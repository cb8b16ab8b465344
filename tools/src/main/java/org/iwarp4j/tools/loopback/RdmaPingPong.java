package org.iwarp4j.tools.loopback;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.iwarp4j.mpa.MpaSettings;
import org.iwarp4j.rdmap.ReceiveWorkRequest;
import org.iwarp4j.rdmap.SendWorkRequest;
import org.iwarp4j.rdmap.Transport;
import org.iwarp4j.rdmap.WorkCompletion;
import org.iwarp4j.rdmap.WorkCompletionOpcode;

/**
 * SEND round trips of {@code size} octets, one at a time: the client Sends, the server's receive
 * completion reposts the receive and Sends back, the client's receive completion reposts and
 * Sends the next (perftest's ib_send_lat shape, completions handled on the event loops).
 */
final class RdmaPingPong {

    private RdmaPingPong() {
    }

    /** Mean round-trip time in microseconds over {@code rounds} round trips after {@code warmupRounds}. */
    static RoundTrips run(int size, int warmupRounds, int rounds, MpaSettings mpa, Transport transport) throws Exception {
        try (RnicPair pair = new RnicPair(transport, mpa, 2 * size, 4)) {
            pair.server.postReceive(new ReceiveWorkRequest(0, pair.serverRegion.sge(0, size)));
            pair.client.postReceive(new ReceiveWorkRequest(0, pair.clientRegion.sge(0, size)));
            long[] timing = new long[2];
            long[] cpu = new long[2];
            int[] count = new int[1];
            CompletableFuture<Void> done = new CompletableFuture<>();
            pair.serverCq.setListener((WorkCompletion c) -> {
                if (!c.isSuccess()) {
                    done.completeExceptionally(new IllegalStateException("server: " + c));
                } else if (c.opcode() == WorkCompletionOpcode.RECEIVE) {
                    pair.server.postReceive(new ReceiveWorkRequest(0, pair.serverRegion.sge(0, size)));
                    pair.server.postSend(SendWorkRequest.send(0, pair.serverRegion.sge(size, size)));
                }
            });
            pair.clientCq.setListener((WorkCompletion c) -> {
                if (!c.isSuccess()) {
                    done.completeExceptionally(new IllegalStateException("client: " + c));
                } else if (c.opcode() == WorkCompletionOpcode.RECEIVE) {
                    int n = ++count[0];
                    if (n == warmupRounds) {
                        timing[0] = System.nanoTime();
                        cpu[0] = Measurement.eventLoopCpuNanos();
                    } else if (n == warmupRounds + rounds) {
                        timing[1] = System.nanoTime();
                        cpu[1] = Measurement.eventLoopCpuNanos();
                        done.complete(null);
                        return;
                    }
                    pair.client.postReceive(new ReceiveWorkRequest(0, pair.clientRegion.sge(0, size)));
                    pair.client.postSend(SendWorkRequest.send(0, pair.clientRegion.sge(size, size)));
                }
            });
            pair.connect();
            pair.client.postSend(SendWorkRequest.send(0, pair.clientRegion.sge(size, size)));
            done.get(300, TimeUnit.SECONDS);
            return RoundTrips.of(timing, cpu, rounds);
        }
    }
}
