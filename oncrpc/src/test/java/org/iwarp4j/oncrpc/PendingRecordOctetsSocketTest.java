package org.iwarp4j.oncrpc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.iwarp4j.oncrpc.TcpTransportTest.PROG;

import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import java.io.DataInputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

/**
 * {@link RpcTcpServer.Builder#maxPendingRecordOctets} over real sockets: a connection whose record
 * reservation waits leaves what its client sends in the kernel's receive queue, unread, until its
 * turn, and then reads and serves it. {@link PendingRecordOctetsTest} checks the same rules on
 * EmbeddedChannels, where "not read" is the count of reads asked of the channel; here it is the
 * server socket's receive queue as Linux reports it in {@code /proc/net/tcp} (or {@code tcp6}), so the test needs
 * Linux and is skipped elsewhere. Every wait is bounded by {@link #WAIT_MILLIS}.
 */
class PendingRecordOctetsSocketTest {

    private static final int WAIT_MILLIS = 10_000;
    private static final int BIG = 200 * 1024;
    /** Octets of C's record sent before its reservation is known to wait: the mark and part of the header. */
    private static final int HEAD = 1000;
    /** Java's sockets are IPv6 sockets where the system has IPv6, even to 127.0.0.1: both tables. */
    private static final List<Path> PROC_NET_TCP = List.of(Path.of("/proc/net/tcp"), Path.of("/proc/net/tcp6"));

    private final List<CompletableFuture<XdrMessage>> pending = new CopyOnWriteArrayList<>();
    private final List<Integer> argumentLengths = new CopyOnWriteArrayList<>();
    private final List<Socket> sockets = new ArrayList<>();
    private final EventLoopGroup group = new MultiThreadIoEventLoopGroup(1, NioIoHandler.newFactory());
    private RpcTcpServer server;

    private final RpcDispatcher dispatcher = new RpcDispatcher().register(RpcProgram.builder(PROG, 1)
            .procedure(1, (ctx, args) -> {
                argumentLengths.add(args.readOpaque(1 << 20).length);
                CompletableFuture<XdrMessage> later = new CompletableFuture<>();
                pending.add(later);
                return later;
            })
            .build());

    @AfterEach
    void tearDown() throws IOException {
        pending.forEach(f -> f.complete(XdrEncoder.create().toMessage()));
        for (Socket s : sockets) {
            s.close();
        }
        if (server != null) {
            server.close();
        }
        group.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
    }

    /** A call record of one fragment, record mark first, whose argument is an opaque of {@code length} zeros. */
    private static byte[] call(int xid, int length) {
        int padded = length + ((4 - length % 4) % 4);
        ByteBuffer b = ByteBuffer.allocate(4 + 44 + padded);
        b.putInt(0x8000_0000 | (44 + padded)).putInt(xid).putInt(0).putInt(2).putInt(PROG).putInt(1).putInt(1)
                .putInt(0).putInt(0).putInt(0).putInt(0).putInt(length);
        return b.array();
    }

    private Socket connect() throws IOException {
        Socket s = new Socket();
        sockets.add(s);
        s.setSoTimeout(WAIT_MILLIS);
        s.connect(server.localAddress(), WAIT_MILLIS);
        return s;
    }

    private static void await(String what, BooleanSupplier condition) {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(WAIT_MILLIS);
        while (!condition.getAsBoolean()) {
            assertThat(System.nanoTime()).as("waiting until " + what).isLessThan(deadline);
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(1));
        }
    }

    /** Runs an empty task on the server's event loop twice: whatever it had to read by now, it has read. */
    private void twoTurnsOfTheServersLoop() {
        for (int i = 0; i < 2; i++) {
            group.next().submit(() -> { }).syncUninterruptibly();
        }
    }

    /**
     * Octets in the receive queue of the server's end of {@code client}'s connection: what arrived
     * and the server has not read ({@code rx_queue} of its line in /proc/net/tcp).
     */
    private int unreadAtServer(Socket client) throws IOException {
        int serverPort = ((InetSocketAddress) server.localAddress()).getPort();
        String local = String.format(Locale.ROOT, ":%04X", serverPort);
        String remote = String.format(Locale.ROOT, ":%04X", client.getLocalPort());
        for (Path table : PROC_NET_TCP) {
            if (!Files.isReadable(table)) {
                continue;
            }
            for (String line : Files.readAllLines(table)) {
                String[] f = line.trim().split("\\s+");
                if (f.length > 4 && f[1].endsWith(local) && f[2].endsWith(remote)) {
                    return Integer.parseInt(f[4].substring(f[4].indexOf(':') + 1), 16);
                }
            }
        }
        throw new AssertionError("no line for the server's end of port " + client.getLocalPort());
    }

    private static int replyXid(Socket s) throws IOException {
        DataInputStream in = new DataInputStream(s.getInputStream());
        byte[] reply = new byte[in.readInt() & 0x7FFF_FFFF];
        in.readFully(reply);
        return ByteBuffer.wrap(reply).getInt();
    }

    @Test
    void aRecordWaitingForItsOctetsStaysInTheSocketUnreadUntilItsTurn() throws Exception {
        Assumptions.assumeTrue(PROC_NET_TCP.stream().anyMatch(Files::isReadable), "needs Linux's /proc/net/tcp");
        server = RpcTcpServer.builder(dispatcher).serverBudget(1, Long.MAX_VALUE).maxPendingRecordOctets(300 * 1024).maxPendingRecordOctetsPerClient(300 * 1024)
                .eventLoopGroup(group, NioServerSocketChannel.class).bind(new InetSocketAddress("127.0.0.1", 0));
        Socket a = connect();
        Socket b = connect();
        Socket c = connect();

        a.getOutputStream().write(call(1, 100)); // small: reserves nothing, takes the one place in service
        await("a's call is in service", () -> pending.size() == 1);
        byte[] bCall = call(2, BIG);
        b.getOutputStream().write(bCall); // read whole, waits for the place in service holding its octets
        await("b's record is read and waits for service", () -> server.connectionsWaitingForBudget() == 1);
        assertThat(server.pendingRecordOctets()).isEqualTo(bCall.length - 4);

        byte[] cCall = call(3, BIG);
        OutputStream cOut = c.getOutputStream();
        cOut.write(cCall, 0, HEAD); // its mark announces more than the bound leaves
        await("c's reservation waits", () -> server.connectionsWaitingForRecordOctets() == 1);
        // The rest from another thread: unread, it may be more than the socket buffers take.
        CompletableFuture<Void> rest = CompletableFuture.runAsync(() -> {
            try {
                cOut.write(cCall, HEAD, cCall.length - HEAD);
            } catch (IOException e) {
                throw new IllegalStateException(e);
            }
        });
        int[] unread = new int[1];
        await("c's octets sit in the server's receive queue", () -> {
            try {
                return (unread[0] = unreadAtServer(c)) >= 16 * 1024;
            } catch (IOException e) {
                throw new IllegalStateException(e);
            }
        });
        twoTurnsOfTheServersLoop();
        assertThat(unreadAtServer(c)).as("the server read none of c's octets while it waits")
                .isGreaterThanOrEqualTo(unread[0]);
        assertThat(server.connectionsWaitingForRecordOctets()).isEqualTo(1);
        assertThat(server.pendingRecordOctets()).as("only b's record holds octets").isEqualTo(bCall.length - 4);
        assertThat(argumentLengths).containsExactly(100);

        pending.get(0).complete(XdrEncoder.create().toMessage()); // a's call ends: b's starts, c's turn comes
        assertThat(replyXid(a)).isEqualTo(1);
        await("b's call starts", () -> argumentLengths.size() == 2 && pending.size() == 2);
        rest.get(WAIT_MILLIS, TimeUnit.MILLISECONDS);
        await("c's record is read whole", () -> server.connectionsWaitingForBudget() == 1);
        assertThat(unreadAtServer(c)).isZero();
        assertThat(server.connectionsWaitingForRecordOctets()).isZero();
        assertThat(server.pendingRecordOctets()).as("b's given back, c's held").isEqualTo(cCall.length - 4);

        pending.get(1).complete(XdrEncoder.create().toMessage());
        assertThat(replyXid(b)).isEqualTo(2);
        await("c's call starts", () -> pending.size() == 3);
        assertThat(argumentLengths).containsExactly(100, BIG, BIG);
        pending.get(2).complete(XdrEncoder.create().toMessage());
        assertThat(replyXid(c)).isEqualTo(3);
        assertThat(server.pendingRecordOctets()).as("every call started").isZero();
    }
}
