package org.iwarp4j.nfs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.iwarp4j.nfs.v4.Nfs4Constants.*;

import java.io.DataInputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * NFSv4.1 callbacks over TCP (RFC 8881 §2.10.3.1): a session made with
 * CREATE_SESSION4_FLAG_CONN_BACK_CHAN on a TCP connection gets its back channel on that very
 * connection, as the Linux client expects. The test client is a raw socket that reads every record
 * the server sends: CB_NULL and CB_COMPOUND(CB_SEQUENCE) arrive as CALL records (checked octet by
 * octet), are answered with REPLY records on the same connection, and the server counts the
 * answers. BIND_CONN_TO_SESSION from a second connection moves the back channel there (CDFS4_BOTH),
 * and the next probe uses the back channel slot's next sequenceid.
 */
class Nfs4BackchannelTcpTest {

    private static final int CB_PROGRAM = 0x40000000;
    private static final int TIMEOUT = 20;

    @TempDir
    Path dir;

    /** One TCP connection of the test client: forward calls, and the server's calls to answer. */
    private static final class Conn implements AutoCloseable {
        final Socket socket = new Socket();
        final BlockingQueue<ByteBuffer> replies = new ArrayBlockingQueue<>(16);
        final BlockingQueue<ByteBuffer> calls = new ArrayBlockingQueue<>(16);
        final Thread reader;
        int xid = 100;

        Conn(int port) throws IOException {
            socket.connect(new InetSocketAddress("127.0.0.1", port), 5000);
            DataInputStream in = new DataInputStream(socket.getInputStream());
            reader = new Thread(() -> {
                try {
                    while (true) {
                        int mark = in.readInt();
                        byte[] b = new byte[mark & 0x7FFF_FFFF];
                        in.readFully(b);
                        ByteBuffer m = ByteBuffer.wrap(b);
                        (m.getInt(4) == 0 ? calls : replies).add(m);
                    }
                } catch (IOException | IllegalStateException end) {
                    // connection closed
                }
            }, "test-nfs4-tcp-reader");
            reader.setDaemon(true);
            reader.start();
        }

        synchronized void send(ByteBuffer message) throws IOException {
            OutputStream out = socket.getOutputStream();
            out.write(ByteBuffer.allocate(4).putInt(0x8000_0000 | message.remaining()).array());
            out.write(message.array(), message.arrayOffset() + message.position(), message.remaining());
            out.flush();
        }

        /** A COMPOUND call with AUTH_SYS root; returns the reply's COMPOUND4res, positioned after the header. */
        ByteBuffer compound(int minor, int ops, ByteBuffer body) throws Exception {
            int x = ++xid;
            byte[] machine = "tcp-client".getBytes(StandardCharsets.US_ASCII);
            ByteBuffer call = ByteBuffer.allocate(4096);
            call.putInt(x).putInt(0).putInt(2).putInt(PROGRAM).putInt(VERSION).putInt(NFSPROC4_COMPOUND);
            call.putInt(AUTH_SYS).putInt(20 + 12).putInt(0).putInt(machine.length).put(machine).put(new byte[2])
                    .putInt(0).putInt(0).putInt(0);
            call.putInt(0).putInt(0);
            call.putInt(0).putInt(minor).putInt(ops);
            call.put(body.flip());
            send(call.flip());
            ByteBuffer r = replies.poll(TIMEOUT, TimeUnit.SECONDS);
            assertThat(r).as("reply to xid %d", x).isNotNull();
            assertThat(r.getInt()).isEqualTo(x);
            r.position(24); // xid, REPLY, MSG_ACCEPTED, AUTH_NONE verifier, SUCCESS
            return r;
        }

        /** The next call the server makes on this connection. */
        ByteBuffer nextCall() throws InterruptedException {
            ByteBuffer c = calls.poll(TIMEOUT, TimeUnit.SECONDS);
            assertThat(c).as("a callback on this connection").isNotNull();
            return c;
        }

        void answer(int xid, ByteBuffer results) throws IOException {
            ByteBuffer r = ByteBuffer.allocate(24 + results.position());
            r.putInt(xid).putInt(1).putInt(0).putInt(0).putInt(0).putInt(0).put(results.flip());
            send(r.flip());
        }

        @Override
        public void close() throws IOException {
            socket.close();
        }
    }

    private static ByteBuffer ops() {
        return ByteBuffer.allocate(2048);
    }

    private static void opaque(ByteBuffer b, byte[] data) {
        b.putInt(data.length).put(data).put(new byte[(4 - data.length % 4) % 4]);
    }

    /** Skips COMPOUND4res's status, tag and count, and the first result's opcode and status. */
    private static ByteBuffer firstResult(ByteBuffer r, int opcode) {
        assertThat(r.getInt()).as("COMPOUND status").isEqualTo(NFS4_OK);
        r.position(r.position() + 4 + ((r.getInt(r.position()) + 3) & ~3));
        r.getInt();
        assertThat(r.getInt()).isEqualTo(opcode);
        assertThat(r.getInt()).isEqualTo(NFS4_OK);
        return r;
    }

    private static void sequence(Conn c, byte[] session, int seq) throws Exception {
        ByteBuffer b = ops();
        b.putInt(OP_SEQUENCE).put(session).putInt(seq).putInt(0).putInt(0).putInt(0);
        firstResult(c.compound(1, 1, b), OP_SEQUENCE);
    }

    /**
     * Answers the probe: checks CB_NULL's octets and answers it, then CB_COMPOUND's CB_SEQUENCE
     * (session, slot 0, {@code expectedSeq}) and answers NFS4_OK.
     */
    private static void answerProbe(Conn c, byte[] session, int expectedSeq) throws Exception {
        ByteBuffer cbNull = c.nextCall();
        int xid = cbNull.getInt();
        assertThat(cbNull.getInt()).as("msg_type CALL").isEqualTo(0);
        assertThat(cbNull.getInt()).as("rpcvers").isEqualTo(2);
        assertThat(cbNull.getInt()).as("the callback program CREATE_SESSION named").isEqualTo(CB_PROGRAM);
        assertThat(cbNull.getInt()).isEqualTo(CB_VERSION);
        assertThat(cbNull.getInt()).isEqualTo(CB_NULL);
        c.answer(xid, ByteBuffer.allocate(0));

        ByteBuffer cb = c.nextCall();
        int cbXid = cb.getInt();
        cb.position(20);
        assertThat(cb.getInt()).isEqualTo(CB_COMPOUND);
        cb.position(cb.position() + 8 + ((cb.getInt(cb.position() + 4) + 3) & ~3)); // credential
        cb.position(cb.position() + 8); // verifier
        cb.position(cb.position() + 4 + ((cb.getInt(cb.position()) + 3) & ~3)); // tag
        assertThat(cb.getInt()).as("minorversion").isEqualTo(1);
        cb.getInt(); // callback_ident
        assertThat(cb.getInt()).as("one operation").isEqualTo(1);
        assertThat(cb.getInt()).isEqualTo(OP_CB_SEQUENCE);
        byte[] sid = new byte[16];
        cb.get(sid);
        assertThat(sid).isEqualTo(session);
        assertThat(cb.getInt()).as("csa_sequenceid").isEqualTo(expectedSeq);
        assertThat(cb.getInt()).as("csa_slotid").isZero();
        ByteBuffer res = ByteBuffer.allocate(64);
        res.putInt(NFS4_OK).putInt(0).putInt(1).putInt(OP_CB_SEQUENCE).putInt(NFS4_OK).put(session)
                .putInt(expectedSeq).putInt(0).putInt(0).putInt(0);
        c.answer(cbXid, res);
    }

    @Test
    void callbacksUseTheClientsTcpConnectionAndFollowBindConnToSession() throws Exception {
        try (NfsServer server = NfsServer.builder(dir).exportOptions(NfsTcpFixture.TRUSTED_ROOT)
                .tcpAddress(new InetSocketAddress("127.0.0.1", 0)).workerThreads(2).start();
             Conn first = new Conn(server.tcpPort());
             Conn second = new Conn(server.tcpPort())) {
            ByteBuffer x = ops();
            x.putInt(OP_EXCHANGE_ID).putLong(1);
            opaque(x, "tcp-cb".getBytes(StandardCharsets.UTF_8));
            x.putInt(0).putInt(SP4_NONE).putInt(0);
            ByteBuffer xr = firstResult(first.compound(1, 1, x), OP_EXCHANGE_ID);
            long clientId = xr.getLong();
            int seq = xr.getInt();

            ByteBuffer cs = ops();
            cs.putInt(OP_CREATE_SESSION).putLong(clientId).putInt(seq).putInt(CREATE_SESSION4_FLAG_CONN_BACK_CHAN);
            cs.putInt(0).putInt(1 << 20).putInt(1 << 20).putInt(4096).putInt(8).putInt(4).putInt(0);
            cs.putInt(0).putInt(4096).putInt(4096).putInt(0).putInt(2).putInt(1).putInt(0);
            cs.putInt(CB_PROGRAM).putInt(1).putInt(AUTH_NONE);
            ByteBuffer csr = firstResult(first.compound(1, 1, cs), OP_CREATE_SESSION);
            byte[] session = new byte[16];
            csr.get(session);
            csr.getInt();
            assertThat(csr.getInt() & CREATE_SESSION4_FLAG_CONN_BACK_CHAN).as("back channel granted over TCP")
                    .isNotZero();
            assertThat(first.calls).as("no callback before the client sequenced on the session").isEmpty();

            sequence(first, session, 1);
            answerProbe(first, session, 1);
            assertThat(server.awaitNfs4CallbacksAnswered(2, Duration.ofSeconds(TIMEOUT))).isTrue();

            ByteBuffer bind = ops();
            bind.putInt(OP_BIND_CONN_TO_SESSION).put(session).putInt(CDFC4_FORE_OR_BOTH).putInt(0);
            ByteBuffer br = firstResult(second.compound(1, 1, bind), OP_BIND_CONN_TO_SESSION);
            byte[] bound = new byte[16];
            br.get(bound);
            assertThat(bound).isEqualTo(session);
            assertThat(br.getInt()).as("bound to both channels").isEqualTo(CDFS4_BOTH);
            assertThat(br.getInt()).as("bctsr_use_conn_in_rdma_mode").isZero();

            sequence(second, session, 2);
            answerProbe(second, session, 2);
            assertThat(server.awaitNfs4CallbacksAnswered(4, Duration.ofSeconds(TIMEOUT))).isTrue();
            assertThat(server.nfs4CallbacksAnswered()).isEqualTo(4);
            assertThat(first.calls).as("nothing more on the first connection").isEmpty();
            assertThat(Arrays.asList(first.replies.toArray())).isEmpty();
        }
    }
}
