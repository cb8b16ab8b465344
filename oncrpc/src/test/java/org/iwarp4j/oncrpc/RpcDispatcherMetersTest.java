package org.iwarp4j.oncrpc;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.DistributionSummary;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The calls in progress per transport ({@code iwarp.oncrpc.calls.active} and
 * {@code iwarp.oncrpc.calls.in.progress}): a call counts from its dispatch until its reply is
 * complete, each transport on its own.
 */
class RpcDispatcherMetersTest {

    private static final int PROG = 0x20000099;
    private static final InetSocketAddress PEER = new InetSocketAddress("192.0.2.1", 700);

    private final MeterRegistry registry = new SimpleMeterRegistry();
    private final List<CompletableFuture<XdrMessage>> held = new ArrayList<>();
    private final RpcDispatcher dispatcher = new RpcDispatcher(registry)
            .register(RpcProgram.builder(PROG, 2).procedure(1, (ctx, args) -> {
                CompletableFuture<XdrMessage> reply = new CompletableFuture<>();
                held.add(reply); // answered when the test says so
                return reply;
            }).build());

    private CompletableFuture<XdrMessage> call(String transport) {
        return dispatcher.dispatch(XdrBytes.message(String.format("00000001 00000000 00000002 %08x 00000002 00000001 "
                + "00000000 00000000 00000000 00000000", PROG)), RpcTransportInfo.of(transport, null, PEER));
    }

    private double active(String transport) {
        return registry.get("iwarp.oncrpc.calls.active").tag("transport", transport).gauge().value();
    }

    private DistributionSummary inProgress(String transport) {
        return registry.get("iwarp.oncrpc.calls.in.progress").tag("transport", transport).summary();
    }

    @Test
    void callsCountFromDispatchUntilTheirReplyPerTransport() throws Exception {
        List<CompletableFuture<XdrMessage>> replies = new ArrayList<>();
        replies.add(call("rdma"));
        replies.add(call("rdma"));
        replies.add(call("tcp"));
        assertThat(held).hasSize(3);
        assertThat(active("rdma")).isEqualTo(2);
        assertThat(active("tcp")).isEqualTo(1);
        assertThat(inProgress("rdma").count()).isEqualTo(2);
        assertThat(inProgress("rdma").max()).isEqualTo(2); // the second found the first still in progress
        assertThat(inProgress("tcp").max()).isEqualTo(1);

        held.get(0).complete(XdrEncoder.create().toMessage());
        replies.get(0).get(5, TimeUnit.SECONDS).release();
        assertThat(active("rdma")).isEqualTo(1);
        replies.add(call("rdma"));
        assertThat(inProgress("rdma").count()).isEqualTo(3);
        assertThat(inProgress("rdma").totalAmount()).isEqualTo(1 + 2 + 2);

        for (int i = 1; i < held.size(); i++) {
            held.get(i).complete(XdrEncoder.create().toMessage());
            replies.get(i).get(5, TimeUnit.SECONDS).release();
        }
        assertThat(active("rdma")).isZero();
        assertThat(active("tcp")).isZero();
    }

    @Test
    void aFailedCallLeavesTheCountToo() throws Exception {
        CompletableFuture<XdrMessage> reply = call("tcp");
        held.get(0).completeExceptionally(new IllegalStateException("procedure bug"));
        // The dispatcher answers SYSTEM_ERR or fails the future; either way the call is over.
        reply.handle((r, e) -> {
            if (r != null) {
                r.release();
            }
            return null;
        }).get(5, TimeUnit.SECONDS);
        assertThat(active("tcp")).isZero();
    }
}
