package org.iwarp4j.oncrpc;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.BufferedOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * RpcTcpClientTransport when its connection is lost, against a server scripted with plain sockets
 * so that every record is seen as octets: the outstanding call goes out again, identical, on a new
 * connection (Linux's client does the same; a server's duplicate request cache recognises it), a
 * bounded number of times; and when no connection can be made the calls fail.
 */
class TcpReconnectTest {

    private static final int PROG = 0x20000056;

    /** One record mark and body from {@code socket}. */
    private static byte[] readRecord(Socket socket) throws IOException {
        DataInputStream in = new DataInputStream(socket.getInputStream());
        int mark = in.readInt();
        assertThat(mark & 0x8000_0000).as("last fragment").isNotZero();
        byte[] record = new byte[mark & 0x7fff_ffff];
        in.readFully(record);
        return record;
    }

    /** An accepted SUCCESS reply to {@code xid} whose results are one int. */
    private static void reply(Socket socket, int xid, int result) throws IOException {
        DataOutputStream out = new DataOutputStream(new BufferedOutputStream(socket.getOutputStream()));
        out.writeInt(0x8000_0000 | 28);
        out.writeInt(xid);
        out.writeInt(1); // REPLY
        out.writeInt(0); // MSG_ACCEPTED
        out.writeLong(0); // AUTH_NONE verifier
        out.writeInt(0); // SUCCESS
        out.writeInt(result);
        out.flush();
    }

    private static int xidOf(byte[] record) {
        return ByteBuffer.wrap(record).getInt(0);
    }

    private static ServerSocket listener() throws IOException {
        ServerSocket listener = new ServerSocket();
        listener.setReuseAddress(true);
        listener.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
        listener.setSoTimeout(20_000);
        return listener;
    }

    private static Socket accept(ServerSocket listener) throws IOException {
        Socket s = listener.accept();
        s.setSoTimeout(20_000);
        return s;
    }

    private static Throwable failure(CompletableFuture<?> f) throws Exception {
        try {
            f.get(20, TimeUnit.SECONDS);
        } catch (ExecutionException e) {
            return e.getCause();
        }
        throw new AssertionError("expected a failure, got a result");
    }

    private static CompletableFuture<RpcReply> call(RpcClient client, int argument) {
        return client.call(PROG, 1, 1, args -> args.writeInt(argument));
    }

    @Test
    void aCallOutstandingWhenTheConnectionIsLostGoesOutAgainIdenticalOnANewConnection() throws Exception {
        try (ServerSocket listener = listener()) {
            CompletableFuture<RpcTcpClientTransport> connecting =
                    RpcTcpClientTransport.connect(listener.getLocalSocketAddress());
            Socket first = accept(listener);
            try (RpcTcpClientTransport transport = connecting.get(20, TimeUnit.SECONDS);
                 RpcClient client = RpcClient.builder(transport).build()) {
                CompletableFuture<RpcReply> call = call(client, 7);
                byte[] sent = readRecord(first);
                first.close(); // lost with the call outstanding
                try (Socket second = accept(listener)) {
                    assertThat(readRecord(second)).as("the same call, xid and all").isEqualTo(sent);
                    reply(second, xidOf(sent), 8);
                    try (RpcReply r = call.get(20, TimeUnit.SECONDS)) {
                        assertThat(r.results().readInt()).isEqualTo(8);
                    }
                    assertThat(transport.connections()).isEqualTo(2);
                    assertThat(transport.retransmissions()).isEqualTo(1);
                    assertThat(transport.isOpen()).isTrue();

                    CompletableFuture<RpcReply> next = call(client, 9); // the new connection carries on
                    byte[] nextSent = readRecord(second);
                    assertThat(xidOf(nextSent)).isNotEqualTo(xidOf(sent));
                    reply(second, xidOf(nextSent), 10);
                    try (RpcReply r = next.get(20, TimeUnit.SECONDS)) {
                        assertThat(r.results().readInt()).isEqualTo(10);
                    }
                    assertThat(transport.retransmissions()).isEqualTo(1);
                }
            }
        }
    }

    @Test
    void aCallTheServerKeepsDroppingFailsAfterItsRetransmissions() throws Exception {
        try (ServerSocket listener = listener()) {
            CompletableFuture<RpcTcpClientTransport> connecting = RpcTcpClientTransport.builder()
                    .maxRetransmissions(1).connect(listener.getLocalSocketAddress());
            Socket first = accept(listener);
            try (RpcTcpClientTransport transport = connecting.get(20, TimeUnit.SECONDS);
                 RpcClient client = RpcClient.builder(transport).build()) {
                CompletableFuture<RpcReply> call = call(client, 7);
                // What the caller sees the moment it learns of the failure (a CI run once saw 1 after it).
                CompletableFuture<Integer> outstandingWhenFailed = call.handle((r, e) -> transport.outstandingCalls());
                byte[] sent = readRecord(first);
                first.close();
                Socket second = accept(listener);
                assertThat(readRecord(second)).isEqualTo(sent);
                second.close();
                assertThat(failure(call)).isInstanceOf(RpcTransportException.class)
                        .hasMessageContaining("after it was sent 2 times");
                assertThat(transport.connections()).isEqualTo(2);
                assertThat(transport.state()).as("no third connection for a call that failed")
                        .startsWith("connection lost");
                assertThat(outstandingWhenFailed.get(20, TimeUnit.SECONDS)).isZero();
                assertThat(transport.outstandingCalls()).isZero();
            }
        }
    }

    @Test
    void aCallThatTimesOutIsNoLongerOutstandingWhenItsCallerLearnsOfIt() throws Exception {
        try (ServerSocket listener = listener()) {
            CompletableFuture<RpcTcpClientTransport> connecting =
                    RpcTcpClientTransport.connect(listener.getLocalSocketAddress());
            try (Socket first = accept(listener);
                 RpcTcpClientTransport transport = connecting.get(20, TimeUnit.SECONDS);
                 RpcClient client = RpcClient.builder(transport).timeout(Duration.ofMillis(200)).build()) {
                CompletableFuture<RpcReply> call = call(client, 7);
                CompletableFuture<Integer> outstandingWhenFailed = call.handle((r, e) -> transport.outstandingCalls());
                readRecord(first); // and never answered
                assertThat(failure(call)).isInstanceOf(RpcTimeoutException.class);
                assertThat(outstandingWhenFailed.get(20, TimeUnit.SECONDS)).isZero();
            }
        }
    }

    @Test
    void whenNoConnectionCanBeMadeTheCallsFailAndTheNextCallConnectsAgain() throws Exception {
        ServerSocket listener = listener();
        InetSocketAddress address = (InetSocketAddress) listener.getLocalSocketAddress();
        CompletableFuture<RpcTcpClientTransport> connecting = RpcTcpClientTransport.connect(address);
        Socket first = accept(listener);
        try (RpcTcpClientTransport transport = connecting.get(20, TimeUnit.SECONDS);
             RpcClient client = RpcClient.builder(transport).build()) {
            CompletableFuture<RpcReply> call = call(client, 7);
            readRecord(first);
            listener.close(); // the server is gone: nothing listens any more
            first.close();
            assertThat(failure(call)).isInstanceOf(RpcTransportException.class)
                    .hasMessageContaining("closed, and connecting again failed");

            try (ServerSocket back = new ServerSocket()) { // the server is back on the same port
                back.setReuseAddress(true);
                back.bind(address);
                back.setSoTimeout(20_000);
                CompletableFuture<RpcReply> later = call(client, 11);
                try (Socket again = accept(back)) {
                    byte[] sent = readRecord(again);
                    reply(again, xidOf(sent), 12);
                    try (RpcReply r = later.get(20, TimeUnit.SECONDS)) {
                        assertThat(r.results().readInt()).isEqualTo(12);
                    }
                }
            }
            assertThat(transport.connections()).isEqualTo(2);
            assertThat(transport.retransmissions()).isZero();
        } finally {
            listener.close();
        }
    }

    @Test
    void withoutReconnectOutstandingAndLaterCallsFail() throws Exception {
        try (ServerSocket listener = listener()) {
            CompletableFuture<RpcTcpClientTransport> connecting = RpcTcpClientTransport.builder().reconnect(false)
                    .connect(listener.getLocalSocketAddress());
            Socket first = accept(listener);
            try (RpcTcpClientTransport transport = connecting.get(20, TimeUnit.SECONDS);
                 RpcClient client = RpcClient.builder(transport).build()) {
                CompletableFuture<RpcReply> call = call(client, 7);
                readRecord(first);
                first.close();
                assertThat(failure(call)).isInstanceOf(RpcTransportException.class).hasMessageEndingWith("closed");
                assertThat(failure(call(client, 8))).isInstanceOf(RpcTransportException.class)
                        .hasMessageEndingWith("closed");
                assertThat(transport.connections()).isEqualTo(1);
            }
        }
    }
}
