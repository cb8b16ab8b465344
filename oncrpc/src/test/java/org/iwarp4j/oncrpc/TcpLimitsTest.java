package org.iwarp4j.oncrpc;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.io.DataInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketException;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.iwarp4j.oncrpc.sample.EchoProgram;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The limits of {@link RpcTcpServer} against raw TCP clients: connection caps per server and per
 * client address (a connection over a cap is closed before anything is read), the idle timeout,
 * and the time bound of one record (a client trickling one octet at a time is cut off even though
 * it is never idle). Every limit is set short here; each test waits for the server's close (end of
 * stream on the client's socket) with a timeout.
 */
class TcpLimitsTest {

    private static final InetSocketAddress LOOPBACK = new InetSocketAddress("127.0.0.1", 0);
    private static final int WAIT_MILLIS = 5000;
    private static final int SLOW_PROGRAM = 0x2000_0077;
    /**
     * The idle timeout of the tests that need a call to arrive first: the server's idle clock runs
     * from the connection's start, so the call must come within it, which 200 ms did not promise on
     * a loaded machine (connected, then the call written by this thread and read by the server).
     */
    private static final Duration IDLE = Duration.ofSeconds(1);

    private final List<Socket> sockets = new ArrayList<>();
    private final SimpleMeterRegistry meters = new SimpleMeterRegistry();
    private RpcTcpServer server;

    @AfterEach
    void close() throws IOException {
        for (Socket s : sockets) {
            s.close();
        }
        if (server != null) {
            server.close();
        }
    }

    private RpcTcpServer.Builder echoServer() {
        return RpcTcpServer.builder(new RpcDispatcher().register(EchoProgram.create())).meterRegistry(meters);
    }

    private Socket connect(String fromAddress) throws IOException {
        Socket s = new Socket();
        sockets.add(s);
        s.setSoTimeout(WAIT_MILLIS);
        if (fromAddress != null) {
            s.bind(new InetSocketAddress(fromAddress, 0));
        }
        s.connect(server.localAddress(), WAIT_MILLIS);
        return s;
    }

    /** A call record of one fragment: AUTH_NONE credential and verifier, no arguments. */
    private static byte[] callRecord(int xid, int program, int version, int procedure) {
        ByteBuffer b = ByteBuffer.allocate(4 + 40);
        b.putInt(0x8000_0000 | 40).putInt(xid).putInt(0).putInt(2).putInt(program).putInt(version).putInt(procedure)
                .putInt(0).putInt(0).putInt(0).putInt(0);
        return b.array();
    }

    /** Sends a NULL call and returns the xid of the reply record: the connection is served. */
    private static int nullCall(Socket s, int xid) throws IOException {
        s.getOutputStream().write(callRecord(xid, EchoProgram.PROGRAM, EchoProgram.VERSION, EchoProgram.PROC_NULL));
        DataInputStream in = new DataInputStream(s.getInputStream());
        int mark = in.readInt();
        byte[] reply = new byte[mark & 0x7FFF_FFFF];
        in.readFully(reply);
        return ByteBuffer.wrap(reply).getInt();
    }

    /** True when the server closed the connection (end of stream or reset) within the wait. */
    private static boolean closedByServer(Socket s) throws IOException {
        try {
            return s.getInputStream().read() == -1;
        } catch (SocketException reset) {
            return true;
        }
    }

    private double counted(String name, String tag, String value) {
        return meters.get(name).tag(tag, value).counter().count();
    }

    @Test
    void aConnectionOverTheServerCapIsClosedAtAcceptAndItsPlaceComesBackWhenOneCloses() throws Exception {
        server = echoServer().maxConnections(2).bind(LOOPBACK);
        Socket first = connect(null);
        Socket second = connect(null);
        assertThat(nullCall(first, 1)).isEqualTo(1);
        assertThat(nullCall(second, 2)).isEqualTo(2);

        Socket third = connect(null);
        assertThat(closedByServer(third)).as("third connection closed by the server").isTrue();
        assertThat(counted("iwarp.oncrpc.connections.refused", "cap", "server")).isEqualTo(1.0);
        assertThat(server.connectionCount()).isEqualTo(2);

        // A closed connection frees its place: some attempt within the wait is served.
        first.close();
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(WAIT_MILLIS);
        boolean served = false;
        while (!served && System.nanoTime() < deadline) {
            Socket again = connect(null);
            try {
                served = nullCall(again, 3) == 3;
            } catch (EOFException | SocketException refusedStill) {
                again.close();
            }
        }
        assertThat(served).as("a new connection is served once one closed").isTrue();
    }

    @Test
    void aConnectionOverThePerAddressCapIsClosedWhileOtherAddressesAreServed() throws Exception {
        server = echoServer().maxConnectionsPerAddress(1).bind(LOOPBACK);
        Socket first = connect("127.0.0.1");
        assertThat(nullCall(first, 1)).isEqualTo(1);

        Socket second = connect("127.0.0.1");
        assertThat(closedByServer(second)).as("second connection from 127.0.0.1 closed").isTrue();
        assertThat(counted("iwarp.oncrpc.connections.refused", "cap", "address")).isEqualTo(1.0);

        Socket other = connect("127.0.0.2"); // another client address, same loopback interface
        assertThat(nullCall(other, 2)).isEqualTo(2);
        assertThat(nullCall(first, 3)).isEqualTo(3);
    }

    @Test
    void anIdleConnectionIsClosedAfterTheIdleTimeout() throws Exception {
        server = echoServer().idleTimeout(IDLE).bind(LOOPBACK);
        Socket s = connect(null);
        // Before the call: the server's idle clock runs from its last read, the call's, which comes
        // after this. (Taken after the reply, it could follow that read by any time a loaded machine
        // holds this thread up, and the close seem early.)
        long start = System.nanoTime();
        assertThat(nullCall(s, 1)).isEqualTo(1);
        assertThat(closedByServer(s)).as("idle connection closed by the server").isTrue();
        assertThat(System.nanoTime() - start).isGreaterThanOrEqualTo(IDLE.toNanos());
        assertThat(server.idleClosedConnections()).isEqualTo(1);
        assertThat(counted("iwarp.oncrpc.connections.closed", "reason", "idle")).isEqualTo(1.0);
    }

    @Test
    void aCallInServiceLongerThanTheIdleTimeoutKeepsItsConnection() throws Exception {
        RpcDispatcher dispatcher = new RpcDispatcher().register(RpcProgram.builder(SLOW_PROGRAM, 1)
                .procedure(1, (ctx, args) -> {
                    XdrMessage results = ctx.newEncoder().toMessage();
                    return CompletableFuture.supplyAsync(() -> results,
                            CompletableFuture.delayedExecutor(3 * IDLE.toMillis(), TimeUnit.MILLISECONDS));
                }).build());
        server = RpcTcpServer.builder(dispatcher).idleTimeout(IDLE).bind(LOOPBACK); // in service three timeouts
        Socket s = connect(null);
        s.getOutputStream().write(callRecord(7, SLOW_PROGRAM, 1, 1));
        DataInputStream in = new DataInputStream(s.getInputStream());
        int mark = in.readInt(); // an EOFException here would mean the server closed it while serving
        byte[] reply = new byte[mark & 0x7FFF_FFFF];
        in.readFully(reply);
        assertThat(ByteBuffer.wrap(reply).getInt()).isEqualTo(7);
        assertThat(server.idleClosedConnections()).isZero();
    }

    @Test
    void aRecordTrickledOneOctetAtATimeIsCutOffByTheRecordTimeBound() throws Exception {
        // The trickle (an octet every 50 ms) keeps the connection busy, and the idle timeout is far
        // beyond the record bound: the record bound is what cuts the connection, however late the
        // trickle's octets come on a loaded machine (with an idle timeout of 200 ms, a trickle held
        // up for 200 ms had the connection closed as idle instead).
        server = echoServer().idleTimeout(Duration.ofSeconds(5)).maxRecordTime(Duration.ofMillis(500))
                .bind(LOOPBACK);
        Socket s = connect(null);
        OutputStream out = s.getOutputStream();
        long start = System.nanoTime(); // before the record's first octet, which starts its clock
        out.write(new byte[] {(byte) 0x80, 0, 0x10, 0}); // a record of 4096 octets announced
        ScheduledExecutorService trickle = Executors.newSingleThreadScheduledExecutor();
        try {
            trickle.scheduleAtFixedRate(() -> {
                try {
                    out.write(0);
                } catch (IOException closed) {
                    throw new IllegalStateException(closed); // ends the schedule
                }
            }, 50, 50, TimeUnit.MILLISECONDS);
            assertThat(closedByServer(s)).as("slow record cut off").isTrue();
            assertThat(System.nanoTime() - start).isGreaterThanOrEqualTo(TimeUnit.MILLISECONDS.toNanos(500));
        } finally {
            trickle.shutdownNow();
        }
        assertThat(server.recordTimeoutClosedConnections()).isEqualTo(1);
        assertThat(server.idleClosedConnections()).isZero();
        assertThat(counted("iwarp.oncrpc.connections.closed", "reason", "record_time")).isEqualTo(1.0);
    }

    @Test
    void aRecordMarkOverTheSizeLimitClosesTheConnectionAndIsCountedNotWarned() throws Exception {
        server = echoServer().maxRecordSize(64).bind(LOOPBACK);
        Socket s = connect(null);
        s.getOutputStream().write(ByteBuffer.allocate(4).putInt(0x8000_0000 | 65).array());
        assertThat(closedByServer(s)).as("oversized record refused").isTrue();
        assertThat(server.recordSizeClosedConnections()).isEqualTo(1);
        assertThat(counted("iwarp.oncrpc.connections.closed", "reason", "record_size")).isEqualTo(1.0);
        assertThat(nullCall(connect(null), 7)).as("the server serves the next connection").isEqualTo(7);
    }

    /**
     * Clients that reset their connections in a loop: each reset connection is closed and counted
     * (reason error), and the server warns of at most ERROR_LOG_BURST of them per interval (its
     * clock stands still here), so the loop cannot fill the log; it goes on serving.
     */
    @Test
    void connectionsResetByTheClientAreCountedAndWarnedOfAtMostTheBurstPerInterval() throws Exception {
        server = echoServer().nanoClock(() -> 0L).bind(LOOPBACK);
        int resets = RpcTcpServer.ERROR_LOG_BURST + 3;
        for (int i = 0; i < resets; i++) {
            Socket s = connect(null);
            assertThat(nullCall(s, i)).isEqualTo(i);
            s.setSoLinger(true, 0); // close sends RST
            s.close();
        }
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(WAIT_MILLIS);
        while (server.errorClosedConnections() < resets && System.nanoTime() < deadline) {
            java.util.concurrent.locks.LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(1));
        }
        assertThat(server.errorClosedConnections()).isEqualTo(resets);
        assertThat(counted("iwarp.oncrpc.connections.closed", "reason", "error")).isEqualTo(resets);
        assertThat(server.errorLog().heldTotal()).isEqualTo(3);
        assertThat(nullCall(connect(null), 99)).as("the server serves the next connection").isEqualTo(99);
    }

    @Test
    void recordsThatEachCompleteInTimeAreServedHoweverLongTheConnectionLasts() throws Exception {
        int calls = 12;
        server = echoServer().maxRecordTime(Duration.ofSeconds(1)).bind(LOOPBACK);
        Socket s = connect(null);
        // Every write ends inside a record; each record still completes within 200 ms of its start
        // (three writes 100 ms apart at most), under the 1 s bound, while the twelve take 1.7 s. The
        // bound leaves 800 ms for the writer thread to be late between two writes of one record on a
        // loaded machine (500 ms left 300 ms, and the record, rightly, cut).
        ScheduledExecutorService writer = Executors.newSingleThreadScheduledExecutor();
        try {
            OutputStream out = s.getOutputStream();
            byte[] records = new byte[0];
            for (int xid = 1; xid <= calls; xid++) {
                byte[] r = callRecord(xid, EchoProgram.PROGRAM, EchoProgram.VERSION, EchoProgram.PROC_NULL);
                byte[] joined = new byte[records.length + r.length];
                System.arraycopy(records, 0, joined, 0, records.length);
                System.arraycopy(r, 0, joined, records.length, r.length);
                records = joined;
            }
            byte[] all = records;
            int piece = 30; // records are 44 octets: pieces straddle every boundary
            CompletableFuture<Void> written = new CompletableFuture<>();
            for (int i = 0, at = 0; at < all.length; i++, at += piece) {
                int from = at;
                int to = Math.min(all.length, at + piece);
                writer.schedule(() -> {
                    try {
                        out.write(all, from, to - from);
                        if (to == all.length) {
                            written.complete(null);
                        }
                    } catch (IOException e) {
                        written.completeExceptionally(e);
                    }
                }, 100L * i, TimeUnit.MILLISECONDS);
            }
            written.get(WAIT_MILLIS, TimeUnit.MILLISECONDS);
            DataInputStream in = new DataInputStream(s.getInputStream());
            for (int xid = 1; xid <= calls; xid++) {
                byte[] reply = new byte[in.readInt() & 0x7FFF_FFFF];
                in.readFully(reply);
                assertThat(ByteBuffer.wrap(reply).getInt()).isEqualTo(xid);
            }
        } finally {
            writer.shutdownNow();
        }
        assertThat(server.recordTimeoutClosedConnections()).isZero();
    }
}
