package org.iwarp4j.oncrpc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.DataInputStream;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.iwarp4j.oncrpc.sample.EchoProgram;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The backward direction of {@link RpcTcpServer} against a raw TCP client (the role the Linux
 * NFSv4.1 client plays for callbacks over TCP): the server's call leaves as one record on the
 * client's own connection with the octets RFC 5531 §9 specifies, the client's REPLY record comes
 * back to the waiting call and not to the dispatcher, the connection keeps serving forward calls
 * in between, and the bounds hold (calls outstanding, timeout, connection loss, unknown xids).
 */
class TcpBackchannelTest {

    private static final InetSocketAddress LOOPBACK = new InetSocketAddress("127.0.0.1", 0);
    private static final int CB_PROGRAM = 0x4000_0001;

    private RpcTcpServer server;
    private Socket socket;

    @AfterEach
    void close() throws IOException {
        if (socket != null) {
            socket.close();
        }
        if (server != null) {
            server.close();
        }
    }

    private RpcClientTransport connect(RpcTcpServer.Builder b) throws Exception {
        server = b.bind(LOOPBACK);
        socket = new Socket();
        socket.setSoTimeout(5000);
        socket.connect(server.localAddress(), 5000);
        // the server sees the connection once a forward call is served on it
        socket.getOutputStream().write(record(call(7, EchoProgram.PROGRAM, EchoProgram.VERSION, EchoProgram.PROC_NULL)));
        assertThat(ByteBuffer.wrap(readRecord()).getInt()).isEqualTo(7);
        RpcClientTransport back = server.backchannel(socket.getLocalSocketAddress());
        assertThat(back).as("backward direction of the client's connection").isNotNull();
        return back;
    }

    private static RpcTcpServer.Builder echo() {
        return RpcTcpServer.builder(new RpcDispatcher().register(EchoProgram.create()));
    }

    private static byte[] call(int xid, int program, int version, int procedure) {
        return ByteBuffer.allocate(40).putInt(xid).putInt(RpcConstants.CALL).putInt(2).putInt(program)
                .putInt(version).putInt(procedure).putInt(0).putInt(0).putInt(0).putInt(0).array();
    }

    /** An accepted, successful reply with one result word. */
    private static byte[] reply(int xid, int result) {
        return ByteBuffer.allocate(28).putInt(xid).putInt(RpcConstants.REPLY).putInt(0).putInt(0).putInt(0)
                .putInt(0).putInt(result).array();
    }

    private static byte[] record(byte[] message) {
        return ByteBuffer.allocate(4 + message.length).putInt(0x8000_0000 | message.length).put(message).array();
    }

    private byte[] readRecord() throws IOException {
        DataInputStream in = new DataInputStream(socket.getInputStream());
        int mark = in.readInt();
        assertThat(mark & 0x8000_0000).as("last fragment bit").isNotZero();
        byte[] b = new byte[mark & 0x7FFF_FFFF];
        in.readFully(b);
        return b;
    }

    @Test
    void aBackwardCallLeavesOnTheClientsConnectionAndItsReplyComesBack() throws Exception {
        RpcClientTransport back = connect(echo());
        RpcClient client = RpcClient.builder(back).timeout(Duration.ofSeconds(5)).build();
        CompletableFuture<RpcReply> pending = client.call(CB_PROGRAM, 1, 0, e -> e.writeInt(0x1234));

        ByteBuffer c = ByteBuffer.wrap(readRecord());
        int xid = c.getInt();
        assertThat(c.getInt()).as("msg_type CALL").isEqualTo(RpcConstants.CALL);
        assertThat(c.getInt()).as("rpcvers").isEqualTo(2);
        assertThat(c.getInt()).as("prog").isEqualTo(CB_PROGRAM);
        assertThat(c.getInt()).as("vers").isEqualTo(1);
        assertThat(c.getInt()).as("proc").isEqualTo(0);
        c.position(c.position() + 16); // AUTH_NONE credential and verifier
        assertThat(c.getInt()).as("argument").isEqualTo(0x1234);
        assertThat(c.remaining()).isZero();

        // a forward call interleaved before the answer is still served by the dispatcher
        socket.getOutputStream().write(record(call(xid, EchoProgram.PROGRAM, EchoProgram.VERSION, EchoProgram.PROC_NULL)));
        ByteBuffer forward = ByteBuffer.wrap(readRecord());
        assertThat(forward.getInt()).isEqualTo(xid);
        assertThat(forward.getInt()).as("the server's reply to the forward call").isEqualTo(RpcConstants.REPLY);
        assertThat(pending).as("same xid, other direction: not an answer").isNotDone();

        socket.getOutputStream().write(record(reply(xid, 0xCAFE)));
        try (RpcReply r = pending.get(5, TimeUnit.SECONDS)) {
            assertThat(r.xid()).isEqualTo(xid);
            assertThat(r.results().readInt()).isEqualTo(0xCAFE);
        }
        assertThat(server.droppedMessages()).as("the REPLY did not go to the dispatcher").isZero();
        client.close();
    }

    @Test
    void callsBeyondTheCapFailAtOnceAndAnUnansweredOneTimesOut() throws Exception {
        // The timeout bounds every backward call, the third's too: it must be answered by this thread
        // (read the call, write the reply) and read by the server within it. 300 ms was too short a
        // budget for a loaded machine; the first call's wait for its timeout is this long.
        RpcClientTransport back = connect(echo().backchannel(1, Duration.ofSeconds(1)));
        RpcClient client = RpcClient.builder(back).timeout(Duration.ofSeconds(10)).build();
        CompletableFuture<RpcReply> first = client.call(CB_PROGRAM, 1, 0, e -> { });
        CompletableFuture<RpcReply> second = client.call(CB_PROGRAM, 1, 0, e -> { });
        assertThatThrownBy(() -> second.get(5, TimeUnit.SECONDS)).isInstanceOf(ExecutionException.class)
                .cause().isInstanceOf(RpcTransportException.class).hasMessageContaining("1 backward calls outstanding");
        int xid = ByteBuffer.wrap(readRecord()).getInt();
        assertThatThrownBy(() -> first.get(5, TimeUnit.SECONDS)).isInstanceOf(ExecutionException.class)
                .cause().isInstanceOf(RpcTimeoutException.class);

        // its late reply is dropped, and the place it held is free again
        socket.getOutputStream().write(record(reply(xid, 1)));
        CompletableFuture<RpcReply> third = client.call(CB_PROGRAM, 1, 0, e -> { });
        int xid3 = ByteBuffer.wrap(readRecord()).getInt();
        socket.getOutputStream().write(record(reply(xid3, 3)));
        try (RpcReply r = third.get(5, TimeUnit.SECONDS)) {
            assertThat(r.results().readInt()).isEqualTo(3);
        }
        assertThat(((org.iwarp4j.oncrpc.internal.TcpBackwardCalls) back).unknownReplies()).isEqualTo(1);
        client.close();
    }

    @Test
    void losingTheConnectionFailsTheOutstandingCallAndLaterOnes() throws Exception {
        RpcClientTransport back = connect(echo());
        RpcClient client = RpcClient.builder(back).timeout(Duration.ofSeconds(10)).build();
        CompletableFuture<RpcReply> pending = client.call(CB_PROGRAM, 1, 0, e -> { });
        readRecord();
        socket.close();
        assertThatThrownBy(() -> pending.get(5, TimeUnit.SECONDS)).isInstanceOf(ExecutionException.class)
                .cause().isInstanceOf(RpcTransportException.class);
        assertThatThrownBy(() -> client.call(CB_PROGRAM, 1, 0, e -> { }).get(5, TimeUnit.SECONDS))
                .isInstanceOf(ExecutionException.class).cause().isInstanceOf(RpcTransportException.class);
        client.close();
    }
}
