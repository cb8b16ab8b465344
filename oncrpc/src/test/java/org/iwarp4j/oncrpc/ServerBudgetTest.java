package org.iwarp4j.oncrpc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.iwarp4j.oncrpc.TcpTransportTest.PROG;
import static org.iwarp4j.oncrpc.TcpTransportTest.callRecord;

import io.netty.channel.embedded.EmbeddedChannel;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.iwarp4j.oncrpc.TcpTransportTest.HeldWrites;
import org.iwarp4j.oncrpc.internal.ServerCallBudget;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * What all connections of an RPC/TCP server may hold together, and how long a reply may wait for
 * a client that does not read: calls in service and unwritten reply octets per connection and per
 * server, the connections waiting for room served in turn, and a connection whose reply is not
 * taken in time closed. The connections' handlers run in EmbeddedChannels whose writes the test
 * holds, so "the socket took the reply" is a promise the test completes.
 */
class ServerBudgetTest {

    /** Octets of one reply: the 1000-octet opaque and the reply header around it. */
    private static final int REPLY_PAYLOAD = 1000;

    private final AtomicInteger served = new AtomicInteger();
    private final List<CompletableFuture<XdrMessage>> pending = new ArrayList<>();
    private final List<EmbeddedChannel> channels = new ArrayList<>();
    private final List<HeldWrites> held = new ArrayList<>();
    private boolean answerAtOnce = true;

    private final RpcDispatcher dispatcher = new RpcDispatcher().register(RpcProgram.builder(PROG, 1)
            .procedure(1, (ctx, args) -> {
                served.incrementAndGet();
                if (answerAtOnce) {
                    return CompletableFuture.completedFuture(reply());
                }
                CompletableFuture<XdrMessage> later = new CompletableFuture<>();
                pending.add(later);
                return later;
            })
            .build());

    private static XdrMessage reply() {
        return XdrEncoder.create().writeOpaque(new byte[REPLY_PAYLOAD], REPLY_PAYLOAD).toMessage();
    }

    private EmbeddedChannel connection(long maxUnwrittenOctets, ServerCallBudget budget) {
        EmbeddedChannel ch = new EmbeddedChannel();
        HeldWrites writes = new HeldWrites();
        ch.pipeline().addLast(writes, RpcTcpServer.connectionHandler(dispatcher, 128, maxUnwrittenOctets, budget, ch));
        channels.add(ch);
        held.add(writes);
        return ch;
    }

    /** A connection from {@code host} (an EmbeddedChannel's own address is the same for all). */
    private EmbeddedChannel connectionFrom(String host, ServerCallBudget budget) {
        EmbeddedChannel ch = new ChannelFromAddress(new InetSocketAddress(host, 40000 + channels.size()));
        HeldWrites writes = new HeldWrites();
        ch.pipeline().addLast(writes, RpcTcpServer.connectionHandler(dispatcher, 128, Long.MAX_VALUE, budget, ch));
        channels.add(ch);
        held.add(writes);
        return ch;
    }

    @AfterEach
    void tearDown() {
        pending.forEach(f -> f.complete(reply()));
        for (int i = 0; i < channels.size(); i++) {
            held.get(i).promises.forEach(p -> p.trySuccess());
            channels.get(i).runPendingTasks();
            channels.get(i).finishAndReleaseAll();
        }
    }

    @Test
    void aConnectionStartsNoCallOnceItsUnwrittenRepliesReachItsBound() {
        ServerCallBudget budget = new ServerCallBudget(100, Long.MAX_VALUE);
        EmbeddedChannel ch = connection(REPLY_PAYLOAD + 500, budget);
        for (int i = 0; i < 5; i++) {
            ch.writeInbound(callRecord(i + 1));
        }
        assertThat(served).as("the second reply crosses the bound").hasValue(2);
        assertThat(ch.config().isAutoRead()).isFalse();
        assertThat(budget.replyOctetsHeld()).isGreaterThan(2L * REPLY_PAYLOAD);

        held.get(0).promises.remove(0).setSuccess();
        assertThat(served).as("one written: room for one more").hasValue(3);
        while (!held.get(0).promises.isEmpty()) {
            held.get(0).promises.remove(0).setSuccess();
        }
        assertThat(served).hasValue(5);
        assertThat(ch.config().isAutoRead()).isTrue();
        assertThat(budget.replyOctetsHeld()).isZero();
        assertThat(budget.callsInService()).isZero();
    }

    /**
     * One client keeping the server's reply octets full makes the others wait, but a place it frees
     * goes to the connection that waited first, not back to it.
     */
    @Test
    void connectionsWaitingForTheServersReplyOctetsAreServedInTurn() {
        ServerCallBudget budget = new ServerCallBudget(100, 2L * REPLY_PAYLOAD);
        EmbeddedChannel greedy = connection(Long.MAX_VALUE, budget);
        EmbeddedChannel first = connection(Long.MAX_VALUE, budget);
        EmbeddedChannel second = connection(Long.MAX_VALUE, budget);
        greedy.writeInbound(callRecord(1));
        greedy.writeInbound(callRecord(2));
        greedy.writeInbound(callRecord(3));
        assertThat(served).as("two replies fill the server's octets").hasValue(2);
        first.writeInbound(callRecord(10));
        second.writeInbound(callRecord(20));
        assertThat(served).hasValue(2);
        assertThat(budget.waiting()).as("three connections wait").isEqualTo(3);
        assertThat(first.config().isAutoRead()).as("a waiting connection is not read").isFalse();

        held.get(0).promises.remove(0).setSuccess();
        assertThat(served).as("greedy waited first").hasValue(3);
        greedy.writeInbound(callRecord(4));
        held.get(0).promises.remove(0).setSuccess();
        assertThat(served).as("the place is first's, not greedy's").hasValue(3);
        first.runPendingTasks();
        assertThat(served).hasValue(4);
        assertThat(held.get(1).promises).hasSize(1);

        held.get(0).promises.remove(0).setSuccess();
        greedy.runPendingTasks();
        second.runPendingTasks();
        assertThat(served).hasValue(5);
        assertThat(held.get(2).promises).as("second's turn").hasSize(1);

        held.get(1).promises.remove(0).setSuccess();
        greedy.runPendingTasks();
        assertThat(served).hasValue(6);
        assertThat(budget.waiting()).isZero();
        assertThat(first.config().isAutoRead()).isTrue();
        assertThat(greedy.config().isAutoRead()).isTrue();
    }

    /** A connection first in line whose own bound is reached gives its turn away instead of holding the others up. */
    @Test
    void aConnectionHeldByItsOwnBoundDoesNotHoldUpTheServersQueue() {
        answerAtOnce = false;
        ServerCallBudget budget = new ServerCallBudget(2, Long.MAX_VALUE);
        EmbeddedChannel slow = connection(REPLY_PAYLOAD, budget);
        EmbeddedChannel other = connection(Long.MAX_VALUE, budget);
        slow.writeInbound(callRecord(1));
        slow.writeInbound(callRecord(2));
        slow.writeInbound(callRecord(3)); // waits first in line
        other.writeInbound(callRecord(4));
        assertThat(budget.waiting()).isEqualTo(2);
        pending.remove(0).complete(reply()); // slow's reply: unwritten, its own bound reached
        slow.runPendingTasks();
        other.runPendingTasks();
        assertThat(served).as("other goes on while slow's client reads nothing").hasValue(3);
        assertThat(held.get(1).promises).isEmpty();
        assertThat(budget.waiting()).as("slow asks again once its own bound allows").isZero();

        held.get(0).promises.remove(0).setSuccess();
        assertThat(served).as("no room in the server: slow queues again").hasValue(3);
        assertThat(budget.waiting()).isEqualTo(1);
    }

    @Test
    void callsInServiceAreCappedAcrossConnections() {
        answerAtOnce = false;
        ServerCallBudget budget = new ServerCallBudget(2, Long.MAX_VALUE);
        EmbeddedChannel a = connection(Long.MAX_VALUE, budget);
        EmbeddedChannel b = connection(Long.MAX_VALUE, budget);
        a.writeInbound(callRecord(1));
        a.writeInbound(callRecord(2));
        b.writeInbound(callRecord(3));
        assertThat(served).hasValue(2);
        assertThat(budget.callsInService()).isEqualTo(2);

        pending.remove(0).complete(reply());
        a.runPendingTasks();
        b.runPendingTasks();
        assertThat(served).as("a reply made frees its call's place").hasValue(3);
        assertThat(held.get(1).promises).isEmpty();
        assertThat(budget.callsInService()).isEqualTo(2);
    }

    /**
     * One client address holds no more calls in service than its share, on all its connections
     * together, while another client's call starts past the connection of the first that waits
     * before it: a share reached holds up only its own client. Without the share, one host with a
     * few connections held every place of the server.
     */
    @Test
    void oneClientsConnectionsHoldNoMoreThanItsShareAndHoldUpNoOtherClient() throws Exception {
        answerAtOnce = false;
        ServerCallBudget budget = new ServerCallBudget(4, 1, Long.MAX_VALUE, Long.MAX_VALUE, Long.MAX_VALUE, Long.MAX_VALUE);
        EmbeddedChannel a1 = connectionFrom("192.0.2.1", budget);
        EmbeddedChannel a2 = connectionFrom("192.0.2.1", budget);
        EmbeddedChannel b = connectionFrom("192.0.2.2", budget);
        a1.writeInbound(callRecord(1));
        a2.writeInbound(callRecord(2));
        assertThat(served).hasValue(1);
        assertThat(budget.waiting()).as("the client's second connection waits").isEqualTo(1);
        assertThat(a2.config().isAutoRead()).as("and is not read").isFalse();
        b.writeInbound(callRecord(3));
        assertThat(served).as("another client starts past it").hasValue(2);
        assertThat(budget.callsInService()).isEqualTo(2);

        pending.remove(0).complete(reply()); // a1's call: its client's place is free
        a1.runPendingTasks();
        a2.runPendingTasks();
        assertThat(served).as("the client's waiting connection goes on").hasValue(3);
        assertThat(budget.waiting()).isZero();
        assertThat(budget.callsInService(java.net.InetAddress.getByName("192.0.2.1"))).as("its share, in use again")
                .isEqualTo(1);
    }

    /**
     * One client address that reads none of its replies holds no more unwritten reply octets than
     * its share, on all its connections together: its connections then start no call, and another
     * client's calls start past them. Without the share, one host's connections could fill the
     * server's reply octets and stop every client for {@code maxReplyWriteTime}.
     */
    @Test
    void oneClientsUnreadRepliesHoldNoMoreThanItsShareAndHoldUpNoOtherClient() throws Exception {
        ServerCallBudget budget = new ServerCallBudget(100, 100, 100L * REPLY_PAYLOAD, 2L * REPLY_PAYLOAD,
                Long.MAX_VALUE, Long.MAX_VALUE);
        EmbeddedChannel a1 = connectionFrom("192.0.2.1", budget);
        EmbeddedChannel a2 = connectionFrom("192.0.2.1", budget);
        EmbeddedChannel b = connectionFrom("192.0.2.2", budget);
        a1.writeInbound(callRecord(1), callRecord(2));
        a2.writeInbound(callRecord(3));
        assertThat(served).as("the client's second reply reaches its share").hasValue(2);
        java.net.InetAddress a = java.net.InetAddress.getByName("192.0.2.1");
        assertThat(budget.replyOctetsHeld(a)).isGreaterThan(2L * REPLY_PAYLOAD);
        assertThat(a2.config().isAutoRead()).as("its other connection is not read").isFalse();
        b.writeInbound(callRecord(4));
        assertThat(served).as("another client's call starts past it").hasValue(3);

        held.get(0).promises.remove(0).setSuccess(); // a1's first reply written: a is below its share
        a1.runPendingTasks();
        a2.runPendingTasks();
        assertThat(served).as("the client's waiting call goes on").hasValue(4);
        assertThat(budget.waiting()).isZero();
        long oneReply = budget.replyOctetsHeld(a) / 2; // a1's second reply and a2's
        held.get(1).promises.remove(0).setFailure(new java.nio.channels.ClosedChannelException()); // a2's write fails
        assertThat(budget.replyOctetsHeld(a)).as("a failed write gives its octets back too").isEqualTo(oneReply);
        held.forEach(h -> {
            while (!h.promises.isEmpty()) {
                h.promises.remove(0).setSuccess();
            }
        });
        assertThat(budget.replyOctetsHeld(a)).isZero();
        assertThat(budget.replyOctetsHeld()).isZero();
    }

    /** Three connections with a call each; the first one's reply fills {@code budget}, the others wait in order. */
    private EmbeddedChannel[] oneReplyFillsTheServerAndTwoWait(ServerCallBudget budget) {
        EmbeddedChannel[] c = new EmbeddedChannel[3];
        for (int i = 0; i < 3; i++) {
            c[i] = connection(Long.MAX_VALUE, budget);
            c[i].writeInbound(callRecord(i + 1));
        }
        assertThat(served).hasValue(1);
        return c;
    }

    /** A waiting connection that closes does not keep the room it would have had from the next one. */
    @Test
    void aWaitingConnectionThatClosesLeavesItsTurnToTheNext() {
        ServerCallBudget budget = new ServerCallBudget(100, REPLY_PAYLOAD);
        EmbeddedChannel[] c = oneReplyFillsTheServerAndTwoWait(budget);
        EmbeddedChannel gone = c[1];
        EmbeddedChannel next = c[2];
        assertThat(budget.waiting()).isEqualTo(2);
        gone.close();
        assertThat(budget.waiting()).isEqualTo(1);

        held.get(0).promises.remove(0).setSuccess();
        next.runPendingTasks();
        assertThat(served).hasValue(2);
        assertThat(held.get(2).promises).hasSize(1);
    }

    /** Woken after it closed (the wake-up was on its way): it passes the room on. */
    @Test
    void aConnectionWokenAfterItClosedPassesTheRoomOn() {
        ServerCallBudget budget = new ServerCallBudget(100, REPLY_PAYLOAD);
        EmbeddedChannel[] c = oneReplyFillsTheServerAndTwoWait(budget);
        EmbeddedChannel gone = c[1];
        EmbeddedChannel next = c[2];
        held.get(0).promises.remove(0).setSuccess(); // wakes 'gone': its task is queued on its loop
        // the connection goes away before that task runs (EmbeddedChannel.close would run it first)
        gone.pipeline().fireChannelInactive();
        gone.runPendingTasks();
        next.runPendingTasks();
        assertThat(served).as("the next one was served instead").hasValue(2);
        assertThat(held.get(2).promises).hasSize(1);
    }

    /**
     * A client that sends calls and never reads: once its replies have made no progress for {@code
     * maxReplyWriteTime}, the connection is closed and everything it held is given back.
     */
    @Test
    void aReplyTheClientDoesNotTakeInTimeClosesTheConnectionAndFreesWhatItHeld() throws Exception {
        int replyOctets = 256 << 10;
        RpcDispatcher big = new RpcDispatcher().register(RpcProgram.builder(PROG, 1)
                .procedure(1, (ctx, args) -> CompletableFuture.completedFuture(
                        XdrEncoder.create().writeOpaque(new byte[replyOctets], replyOctets).toMessage()))
                .build());
        try (RpcTcpServer server = RpcTcpServer.builder(big).maxReplyWriteTime(Duration.ofMillis(500))
                .meterRegistry(new io.micrometer.core.instrument.simple.SimpleMeterRegistry())
                .bind(new InetSocketAddress("127.0.0.1", 0));
             Socket client = new Socket()) {
            client.setReceiveBufferSize(4096);
            client.connect(server.localAddress(), 10_000);
            OutputStream out = client.getOutputStream();
            for (int i = 0; i < 256; i++) { // 64 MiB of replies: more than any socket buffers take
                ByteBuffer record = ByteBuffer.allocate(44);
                byte[] call = new byte[40];
                callRecord(i + 1).readBytes(call).release();
                record.putInt(0x8000_0000 | call.length).put(call);
                out.write(record.array());
            }
            out.flush();
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (server.replyTimeoutClosedConnections() == 0) {
                assertThat(System.nanoTime()).as("closed in time").isLessThan(deadline);
                Thread.onSpinWait();
            }
            while (server.connectionCount() > 0 || server.callsInService() > 0 || server.unwrittenReplyOctets() > 0) {
                assertThat(System.nanoTime()).as("everything given back").isLessThan(deadline);
                Thread.onSpinWait();
            }
            assertThat(server.errorClosedConnections()).isZero();
            assertThat(drainToEnd(client.getInputStream(), deadline)).as("the client sees the connection end")
                    .isLessThan(256L * replyOctets);
        }
    }

    /** Reads until the end of the stream; the octets read. */
    private static long drainToEnd(InputStream in, long deadline) throws IOException {
        byte[] buf = new byte[64 << 10];
        long total = 0;
        int n;
        try {
            while ((n = in.read(buf)) >= 0) {
                total += n;
                assertThat(System.nanoTime()).isLessThan(deadline);
            }
        } catch (java.net.SocketException reset) {
            // closed with replies unsent: a reset is as good an end as a FIN
        }
        return total;
    }
}
