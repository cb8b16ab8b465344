package org.iwarp4j.tools.bench.internal;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.embedded.EmbeddedChannel;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import org.iwarp4j.rdmap.Transport;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The plain-TCP comparison's server listens where anyone can connect while it runs, so it serves
 * its client alone: the control connection's address, at most {@link TcpBenchServer#maxConnections}
 * connections at once, a DONE only from a connection it serves; and what a connection asks for
 * waits while the channel is not writable instead of queueing without bound.
 */
class TcpBenchServerTest {

    private static final int SIZE = 64;
    /** The client's tx depth: Read requests it keeps outstanding per connection. */
    private static final int DEPTH = 8;
    /** A Read answer of which four make the MiB the server flushes after. */
    private static final int LARGE = 256 * 1024;
    private static final int READ_TIMEOUT_MILLIS = 30_000;

    private final List<String> notices = Collections.synchronizedList(new ArrayList<>());
    private final List<Socket> sockets = new ArrayList<>();
    private TcpBenchServer server;

    @AfterEach
    void close() throws IOException {
        for (Socket s : sockets) {
            s.close();
        }
        if (server != null) {
            server.close();
        }
    }

    private TcpBenchServer server(String client, int maxConnections) throws Exception {
        return server(client, maxConnections, SIZE);
    }

    private TcpBenchServer server(String client, int maxConnections, int maxSize) throws Exception {
        // One event loop: connections are accepted and set up in the order they were made.
        server = new TcpBenchServer(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), Transport.NIO, 1,
                maxSize, DEPTH, null, InetAddress.getByName(client), maxConnections, notices::add);
        return server;
    }

    @Test
    void aConnectionFromAnotherAddressIsClosedAndItsDoneIgnored() throws Exception {
        server("192.0.2.1", TcpBenchServer.maxConnections(1));

        for (int i = 0; i < 2; i++) {
            Socket s = connect(TcpMode.DONE, 0);
            assertThat(answer(s)).as("connection %d: closed without an octet", i).isEqualTo(-1);
        }

        assertThat(server.done()).as("a DONE from a stranger does not end the comparison").isNotDone();
        assertThat(notices).as("said once").hasSize(1);
        assertThat(notices.get(0)).contains(InetAddress.getLoopbackAddress().getHostAddress())
                .contains("not the client's address 192.0.2.1");
    }

    @Test
    void aDoneFromTheClientEndsTheComparison() throws Exception {
        server(InetAddress.getLoopbackAddress().getHostAddress(), TcpBenchServer.maxConnections(1));

        Socket s = connect(TcpMode.DONE, 0);

        assertThat(answer(s)).isEqualTo(-1);
        assertThat(server.done()).isDone();
        assertThat(notices).isEmpty();
    }

    @Test
    void connectionsBeyondTheBoundAreClosedAndAClosedOneGivesItsPlaceBack() throws Exception {
        int max = TcpBenchServer.maxConnections(1);
        server(InetAddress.getLoopbackAddress().getHostAddress(), max);
        List<Socket> served = new ArrayList<>();
        for (int i = 0; i < max; i++) {
            Socket s = connect(TcpMode.READ, SIZE);
            assertThat(readOnce(s)).as("connection %d is answered", i).isEqualTo(SIZE);
            served.add(s);
        }

        Socket extra = connect(TcpMode.READ, SIZE);
        assertThat(answer(extra)).as("one over the bound: closed unanswered").isEqualTo(-1);
        assertThat(notices).hasSize(1);
        assertThat(notices.get(0)).contains("over " + max + " connections at once");

        // Closed as the client does: its output ended, then the server's count and close awaited.
        Socket first = served.get(0);
        first.shutdownOutput();
        assertThat(first.getInputStream().readNBytes(9)).as("the server's count, then its close").hasSize(8);

        Socket next = connect(TcpMode.READ, SIZE);
        assertThat(readOnce(next)).as("the place given back is taken").isEqualTo(SIZE);
        assertThat(notices).as("still said once").hasSize(1);
    }

    @Test
    void readAnswersWaitWhileTheChannelIsNotWritable() throws Exception {
        server(InetAddress.getLoopbackAddress().getHostAddress(), 1);
        EmbeddedChannel channel = new EmbeddedChannel(server.new Connection());
        try {
            channel.writeInbound(header(TcpMode.READ, SIZE).writeInt(SIZE).writeInt(SIZE));
            assertThat(releaseOutbound(channel)).as("answered while writable").isEqualTo(2);

            writable(channel, false);
            assertThat(channel.config().isAutoRead()).as("reading stops").isFalse();
            // Octets already on their way in when reading stopped are still delivered.
            channel.writeInbound(Unpooled.buffer().writeInt(SIZE).writeInt(SIZE).writeInt(SIZE));
            assertThat(releaseOutbound(channel)).as("nothing queued while not writable").isZero();

            writable(channel, true);
            assertThat(releaseOutbound(channel)).as("the owed answers, once writable").isEqualTo(3);
            assertThat(channel.config().isAutoRead()).as("reading resumes").isTrue();
        } finally {
            channel.finishAndReleaseAll();
        }
    }

    /**
     * The client keeps tx depth Read requests outstanding, as the RDMA Read client keeps tx depth
     * Reads: the server answers them all at once, flushing once per MiB queued, and its channel
     * never stops being writable. It used to stop at two answers of the largest size (its write
     * buffer's mark), flush them, and switch reading off and on again for every pair.
     */
    @Test
    void aWindowOfReadRequestsIsAnsweredAtOnceWithAFlushPerMib() throws Exception {
        server(InetAddress.getLoopbackAddress().getHostAddress(), 1, LARGE);
        SocketEnd socket = new SocketEnd(true);
        WritabilityChanges changes = new WritabilityChanges();
        EmbeddedChannel channel = new EmbeddedChannel(socket, server.new Connection(), changes);
        try {
            channel.writeInbound(readRequests(LARGE, DEPTH));

            assertThat(socket.writes).as("every request answered").isEqualTo(DEPTH);
            assertThat(socket.flushOffsets).as("a flush after each MiB (four answers)").containsExactly(4, 8);
            assertThat(changes.count).as("the channel stayed writable throughout").isZero();
            assertThat(channel.config().isAutoRead()).isTrue();
            assertThat(releaseOutbound(channel, LARGE)).isEqualTo(DEPTH);
        } finally {
            channel.finishAndReleaseAll();
        }
    }

    /**
     * While the socket takes nothing, a whole window of answers waits in the write buffer with
     * reading still on; a client that asks for more than its depth finds reading stopped once
     * about a window waits: the server's memory stays bounded.
     */
    @Test
    void aWindowOfAnswersWaitsForASlowSocketAndMoreStopsReading() throws Exception {
        server(InetAddress.getLoopbackAddress().getHostAddress(), 1, LARGE);
        SocketEnd socket = new SocketEnd(false);
        EmbeddedChannel channel = new EmbeddedChannel(socket, server.new Connection());
        try {
            channel.writeInbound(readRequests(LARGE, DEPTH));
            assertThat(socket.writes).as("a window's answers, none of them sent").isEqualTo(DEPTH);
            assertThat(channel.isWritable()).isTrue();
            assertThat(channel.config().isAutoRead()).as("reading goes on").isTrue();

            ByteBuf more = Unpooled.buffer();
            for (int i = 0; i < DEPTH; i++) {
                more.writeInt(LARGE);
            }
            channel.writeInbound(more);
            assertThat(socket.writes).as("at most one answer over the window").isLessThanOrEqualTo(DEPTH + 1);
            assertThat(channel.isWritable()).isFalse();
            assertThat(channel.config().isAutoRead()).as("reading stops").isFalse();
        } finally {
            channel.finishAndReleaseAll();
        }
    }

    @Test
    void anEchoStopsReadingWhileItsAnswersCannotBeWritten() throws Exception {
        server(InetAddress.getLoopbackAddress().getHostAddress(), 1);
        EmbeddedChannel channel = new EmbeddedChannel(server.new Connection());
        try {
            channel.writeInbound(header(TcpMode.ECHO_ON_LOOP, SIZE));
            writable(channel, false);

            channel.writeInbound(Unpooled.buffer(SIZE).writeZero(SIZE));

            assertThat(channel.config().isAutoRead()).isFalse();
            writable(channel, true);
            assertThat(channel.config().isAutoRead()).isTrue();
            assertThat(releaseOutbound(channel)).as("the echo").isEqualTo(1);
        } finally {
            channel.finishAndReleaseAll();
        }
    }

    /**
     * A latency echo's responder is an application thread of the comparison: the server tells of
     * it as it starts, so that a loopback run's CPU clock counts it as it counts the RDMA
     * responder's thread.
     */
    @Test
    void anEchosResponderThreadIsToldAsItStarts() throws Exception {
        server(InetAddress.getLoopbackAddress().getHostAddress(), 1);
        java.util.concurrent.CompletableFuture<Thread> told = new java.util.concurrent.CompletableFuture<>();
        server.onEchoThread(told::complete);

        Socket s = connect(TcpMode.ECHO, SIZE);
        s.getOutputStream().write(new byte[SIZE]);

        assertThat(readOnce(s)).as("echoed").isEqualTo(SIZE);
        Thread responder = told.get(READ_TIMEOUT_MILLIS, java.util.concurrent.TimeUnit.MILLISECONDS);
        assertThat(responder.getName()).isEqualTo("iwarp-bench-tcp-echo");
    }

    private static ByteBuf header(TcpMode mode, int size) {
        return Unpooled.buffer().writeInt(mode.ordinal()).writeInt(size);
    }

    /** A Read connection's header and its first {@code n} requests, as one read. */
    private static ByteBuf readRequests(int size, int n) {
        ByteBuf b = header(TcpMode.READ, size);
        for (int i = 0; i < n; i++) {
            b.writeInt(size);
        }
        return b;
    }

    /** Counts the channel's changes of writability that reach the end of the pipeline. */
    private static final class WritabilityChanges extends ChannelInboundHandlerAdapter {
        int count;

        @Override
        public void channelWritabilityChanged(ChannelHandlerContext ctx) {
            count++;
        }
    }

    /** As a socket's send buffer filling or draining would make it (Netty tells the pipeline in a task of the loop). */
    private static void writable(EmbeddedChannel channel, boolean writable) {
        channel.unsafe().outboundBuffer().setUserDefinedWritability(1, writable);
        channel.runPendingTasks();
        assertThat(channel.isWritable()).isEqualTo(writable);
    }

    /** Octets written so far, in messages of {@link #SIZE}. */
    private static int releaseOutbound(EmbeddedChannel channel) {
        return releaseOutbound(channel, SIZE);
    }

    /** Octets written so far, in messages of {@code size}. */
    private static int releaseOutbound(EmbeddedChannel channel, int size) {
        int octets = 0;
        for (ByteBuf b; (b = channel.readOutbound()) != null; ) {
            octets += b.readableBytes();
            b.release();
        }
        return octets / size;
    }

    /** A connection that has sent its header and, for READ, one request. */
    private Socket connect(TcpMode mode, int size) throws IOException {
        Socket s = new Socket();
        sockets.add(s);
        s.setSoTimeout(READ_TIMEOUT_MILLIS);
        s.connect(server.localAddress(), READ_TIMEOUT_MILLIS);
        java.nio.ByteBuffer first = java.nio.ByteBuffer.allocate(12).putInt(mode.ordinal()).putInt(size);
        if (mode == TcpMode.READ) {
            first.putInt(size);
        }
        // One write: a server that closes at accept resets the connection once octets arrive, and a
        // second write would then fail instead of the read that the tests look at.
        s.getOutputStream().write(first.array(), 0, first.position());
        return s;
    }

    /** Octets of one whole answer, or -1 if the server ended the connection first. */
    private static int readOnce(Socket s) throws IOException {
        byte[] answer = s.getInputStream().readNBytes(SIZE);
        return answer.length == SIZE ? SIZE : -1;
    }

    /**
     * The first octet the server sends, or -1 if it ended the connection first: closing with the
     * client's header unread resets it, which is the same end.
     */
    private static int answer(Socket s) throws IOException {
        InputStream in = s.getInputStream();
        try {
            return in.read();
        } catch (java.net.SocketTimeoutException e) {
            throw e;
        } catch (SocketException reset) {
            return -1;
        }
    }
}
