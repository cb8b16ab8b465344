package org.iwarp4j.tools.rpc;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.iwarp4j.rdmap.Rnic;
import org.iwarp4j.rdmap.Transport;
import org.iwarp4j.rpcrdma.RpcRdmaRequester;
import org.iwarp4j.tools.internal.RateLimitedLines;
import org.junit.jupiter.api.Test;

class RpcBenchServerTest {

    private static final long WAIT_SECONDS = 30;

    /**
     * A client that connects and disconnects in a loop makes {@code bench rpc --server} write a
     * line for each connection: the burst is written, then how many were not.
     */
    @Test
    void theLinesOfClosedConnectionsAreRateLimited() throws Exception {
        List<String> written = new CopyOnWriteArrayList<>();
        // Time stands still: the burst of 2 is all the interval ever lets through.
        RateLimitedLines lines = new RateLimitedLines(written::add, "test-lines", 2, 5, TimeUnit.SECONDS, () -> 0L,
                16);
        RpcBenchSettings settings = new RpcBenchSettings(List.of(EchoProcedure.ECHO), List.of(1024), 1, 0, 0, 1,
                4096, 4, Transport.best(), false);
        InetSocketAddress anyPort = new InetSocketAddress(InetAddress.getLoopbackAddress(), 0);
        RpcBenchServer server = new RpcBenchServer(lines, settings, anyPort, anyPort, null);
        try {
            Rnic clients = settings.rnic("client", null);
            try {
                for (int i = 0; i < 3; i++) {
                    RpcRdmaRequester.connect(clients, server.rdmaAddress(), settings.rdmaSettings())
                            .get(WAIT_SECONDS, TimeUnit.SECONDS).close();
                }
            } finally {
                clients.close();
            }
        } finally {
            // Every connection's end is reported by then: the server's RNIC has stopped.
            server.close();
        }
        assertThat(written).hasSize(3);
        assertThat(written.subList(0, 2)).allSatisfy(line -> assertThat(line)
                .matches("RPC-over-RDMA connection from /127\\.0\\.0\\.1:\\d+ closed after 0 calls \\(inline .*\\)"));
        assertThat(written.get(2)).isEqualTo("... suppressed 1 similar line");
    }
}
