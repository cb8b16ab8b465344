package org.iwarp4j.nfs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.iwarp4j.nfs.v4.Nfs4Constants.*;

import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HexFormat;
import java.util.concurrent.TimeUnit;
import org.iwarp4j.nfs.v4.Bitmap4;
import org.iwarp4j.oncrpc.AuthSys;
import org.iwarp4j.oncrpc.RpcClient;
import org.iwarp4j.oncrpc.RpcReply;
import org.iwarp4j.oncrpc.RpcTcpClientTransport;
import org.iwarp4j.oncrpc.XdrDecoder;
import org.iwarp4j.oncrpc.XdrEncoder;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link NfsServer.Builder#nfs4StateDirectory} end to end over TCP: a client's RECLAIM_COMPLETE is
 * recorded in the state directory; a server started again on it begins in a grace period (a new
 * OPEN is NFS4ERR_GRACE) that the recorded client ends with its own RECLAIM_COMPLETE (RFC 8881
 * §8.4.2.1), after which the OPEN succeeds. Without the directory the restarted server has none.
 */
class Nfs4RestartTcpTest {

    private static final int TIMEOUT = 20;
    private static final String OWNER = "restart-test-client";

    @TempDir
    Path dir;
    @TempDir
    Path state;

    /** A client of one server: its session and slot 0's sequenceid. */
    private static final class Client implements AutoCloseable {
        final RpcClient rpc;
        byte[] session;
        int seq;

        Client(NfsServer server) throws Exception {
            rpc = RpcClient.builder(RpcTcpClientTransport.connect(new InetSocketAddress("127.0.0.1", server.tcpPort()))
                    .get(TIMEOUT, TimeUnit.SECONDS)).credential(new AuthSys(0, "t", 0, 0, new int[0])).build();
            long clientId;
            int csSeq;
            try (RpcReply x = compound(1, e -> e.writeInt(OP_EXCHANGE_ID).writeHyper(1)
                    .writeOpaque(OWNER.getBytes(StandardCharsets.UTF_8), 1024).writeInt(0).writeEnum(SP4_NONE)
                    .writeUnsignedInt(0))) {
                XdrDecoder r = ok(x, OP_EXCHANGE_ID);
                clientId = r.readHyper();
                csSeq = r.readInt();
            }
            try (RpcReply c = compound(1, e -> {
                e.writeInt(OP_CREATE_SESSION).writeHyper(clientId).writeInt(csSeq).writeInt(0);
                for (int i = 0; i < 2; i++) {
                    e.writeInt(0).writeInt(1 << 20).writeInt(1 << 20).writeInt(4096).writeInt(8).writeInt(4)
                            .writeUnsignedInt(0);
                }
                e.writeInt(0x40000000).writeUnsignedInt(0);
            })) {
                session = ok(c, OP_CREATE_SESSION).readFixedOpaque(16);
            }
        }

        RpcReply compound(int ops, java.util.function.Consumer<XdrEncoder> body) throws Exception {
            return rpc.call(PROGRAM, VERSION, NFSPROC4_COMPOUND, e -> {
                e.writeString("", 64).writeUnsignedInt(1).writeUnsignedInt(ops);
                body.accept(e);
            }).get(TIMEOUT, TimeUnit.SECONDS);
        }

        /** SEQUENCE, then {@code ops} more operations; the decoder is left after SEQUENCE's result. */
        XdrDecoder sequenced(RpcReply[] holder, int ops, java.util.function.Consumer<XdrEncoder> body) throws Exception {
            int s = ++seq;
            holder[0] = compound(ops + 1, e -> {
                e.writeInt(OP_SEQUENCE).writeFixedOpaque(session).writeInt(s).writeInt(0).writeInt(0).writeBoolean(false);
                body.accept(e);
            });
            XdrDecoder r = holder[0].results();
            r.readInt();
            r.readString(64);
            r.readInt();
            assertThat(r.readInt()).isEqualTo(OP_SEQUENCE);
            assertThat(r.readInt()).isEqualTo(NFS4_OK);
            r.skip(16 + 20);
            return r;
        }

        int reclaimComplete() throws Exception {
            RpcReply[] h = new RpcReply[1];
            XdrDecoder r = sequenced(h, 1, e -> e.writeInt(OP_RECLAIM_COMPLETE).writeBoolean(false));
            try (RpcReply reply = h[0]) {
                assertThat(r.readInt()).isEqualTo(OP_RECLAIM_COMPLETE);
                return r.readInt();
            }
        }

        int open(String name) throws Exception {
            RpcReply[] h = new RpcReply[1];
            XdrDecoder r = sequenced(h, 2, e -> {
                e.writeInt(OP_PUTROOTFH);
                e.writeInt(OP_OPEN).writeInt(0).writeInt(OPEN4_SHARE_ACCESS_BOTH).writeInt(0).writeHyper(0)
                        .writeOpaque("o".getBytes(StandardCharsets.UTF_8), 1024).writeEnum(OPEN4_CREATE)
                        .writeEnum(UNCHECKED4);
                Bitmap4.EMPTY.encode(e);
                e.writeUnsignedInt(0).writeEnum(CLAIM_NULL).writeString(name, 1024);
            });
            try (RpcReply reply = h[0]) {
                assertThat(r.readInt()).isEqualTo(OP_PUTROOTFH);
                assertThat(r.readInt()).isEqualTo(NFS4_OK);
                assertThat(r.readInt()).isEqualTo(OP_OPEN);
                return r.readInt();
            }
        }

        private static XdrDecoder ok(RpcReply reply, int opcode) {
            XdrDecoder r = reply.results();
            assertThat(r.readInt()).isEqualTo(NFS4_OK);
            r.readString(64);
            r.readInt();
            assertThat(r.readInt()).isEqualTo(opcode);
            assertThat(r.readInt()).isEqualTo(NFS4_OK);
            return r;
        }

        @Override
        public void close() {
            rpc.close();
        }
    }

    private NfsServer start(Path stateDirectory) throws Exception {
        return NfsServer.builder(dir).exportOptions(NfsTcpFixture.TRUSTED_ROOT)
                .tcpAddress(new InetSocketAddress("127.0.0.1", 0)).workerThreads(2).nfs4StateDirectory(stateDirectory)
                .start();
    }

    @Test
    void aRestartedServerWaitsForTheRecordedClientsReclaims() throws Exception {
        try (NfsServer first = start(state); Client c = new Client(first)) {
            assertThat(c.open("before")).as("no records at the first start: no grace period").isEqualTo(NFS4_OK);
            assertThat(c.reclaimComplete()).isEqualTo(NFS4_OK);
        }
        assertThat(Files.readAllLines(state.resolve("nfsv4-clients")))
                .contains("+" + HexFormat.of().formatHex(OWNER.getBytes(StandardCharsets.UTF_8)));

        try (NfsServer restarted = start(state); Client c = new Client(restarted)) {
            assertThat(c.open("after")).as("in the grace period").isEqualTo(NFS4ERR_GRACE);
            assertThat(c.reclaimComplete()).isEqualTo(NFS4_OK);
            assertThat(c.open("after")).as("the only recorded client is done: grace over").isEqualTo(NFS4_OK);
        }
        assertThat(dir.resolve("after")).exists();
    }

    @Test
    void withoutAStateDirectoryARestartHasNoGracePeriod() throws Exception {
        try (NfsServer first = start(null); Client c = new Client(first)) {
            assertThat(c.reclaimComplete()).isEqualTo(NFS4_OK);
        }
        try (NfsServer restarted = start(null); Client c = new Client(restarted)) {
            assertThat(c.open("f")).isEqualTo(NFS4_OK);
        }
    }
}
