package org.iwarp4j.nfs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.iwarp4j.nfs.v4.Nfs4Constants.*;

import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.iwarp4j.nfs.internal.NfsRdmaSettings;
import org.iwarp4j.oncrpc.AuthSys;
import org.iwarp4j.oncrpc.RpcClient;
import org.iwarp4j.oncrpc.RpcDispatcher;
import org.iwarp4j.oncrpc.RpcProcedure;
import org.iwarp4j.oncrpc.RpcProgram;
import org.iwarp4j.oncrpc.RpcReply;
import org.iwarp4j.oncrpc.XdrDecoder;
import org.iwarp4j.rdmap.Rnic;
import org.iwarp4j.rpcrdma.RpcRdmaRequester;
import org.iwarp4j.rpcrdma.RpcRdmaSettings;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * ULB-R-027, ULB-R-028: an NFSv4.1 session made over RPC-over-RDMA with a back channel gets
 * CB_NULL and CB_SEQUENCE from the server on the same connection's backward direction (RFC 8167),
 * inline, with the credential and minor version of the session; a CB_SEQUENCE answered
 * NFS4ERR_DELAY is sent again; the client's answers are counted by the server.
 */
class Nfs4BackchannelRdmaTest {

    private static final int CB_PROGRAM = 0x40000000;
    private static final int TIMEOUT = 20;

    @TempDir
    Path dir;

    @Test
    void cbNullAndCbSequenceArriveOnTheBackwardDirection() throws Exception {
        CompletableFuture<Void> cbNull = new CompletableFuture<>();
        CompletableFuture<byte[]> cbSequenceSession = new CompletableFuture<>();
        java.util.concurrent.atomic.AtomicInteger cbCompounds = new java.util.concurrent.atomic.AtomicInteger();
        RpcDispatcher callbacks = new RpcDispatcher().register(RpcProgram.builder(CB_PROGRAM, CB_VERSION)
                .procedure(CB_NULL, RpcProcedure.of((c, in, out) -> cbNull.complete(null)))
                .procedure(CB_COMPOUND, RpcProcedure.of((c, in, out) -> {
                    assertThat(c.authSys()).as("the credential the client offered in CREATE_SESSION").isNotNull();
                    assertThat(c.authSys().machineName()).isEqualTo("client-host");
                    in.readOpaque(1024);
                    assertThat(in.readUnsignedInt()).as("the minor version the session was made with").isEqualTo(2);
                    in.readUnsignedInt();
                    assertThat(in.readUnsignedInt()).isEqualTo(1);
                    assertThat(in.readInt()).isEqualTo(OP_CB_SEQUENCE);
                    byte[] session = in.readFixedOpaque(16);
                    int seq = in.readInt();
                    if (cbCompounds.incrementAndGet() == 1) { // busy at first, as Linux is while it mounts
                        out.writeInt(NFS4ERR_DELAY).writeString("", 64).writeUnsignedInt(1).writeInt(OP_CB_SEQUENCE)
                                .writeInt(NFS4ERR_DELAY);
                        return;
                    }
                    out.writeInt(NFS4_OK).writeString("", 64).writeUnsignedInt(1).writeInt(OP_CB_SEQUENCE)
                            .writeInt(NFS4_OK).writeFixedOpaque(session).writeInt(seq).writeInt(0).writeInt(0).writeInt(0);
                    cbSequenceSession.complete(session);
                })).build());
        try (Rnic serverRnic = Rnic.builder().name("server").build();
             Rnic clientRnic = Rnic.builder().name("client").build();
             NfsServer server = NfsServer.builder(dir).exportOptions(NfsTcpFixture.TRUSTED_ROOT)
                     .tcpAddress(null).rdmaAddress(new InetSocketAddress("127.0.0.1", 0)).rnic(serverRnic)
                     .workerThreads(2).start()) {
            RpcRdmaRequester requester = RpcRdmaRequester.connect(clientRnic,
                    new InetSocketAddress("127.0.0.1", server.rdmaPort()),
                    NfsRdmaSettings.forNfs(RpcRdmaSettings.defaults())).get(TIMEOUT, TimeUnit.SECONDS);
            requester.backchannel(callbacks);
            try (RpcClient rpc = RpcClient.builder(requester).credential(new AuthSys(0, "t", 0, 0, new int[0]))
                    .build()) {
                long clientId;
                int seq;
                try (RpcReply x = rpc.call(PROGRAM, VERSION, NFSPROC4_COMPOUND, e -> e.writeString("", 64)
                        .writeUnsignedInt(1).writeUnsignedInt(1).writeInt(OP_EXCHANGE_ID).writeHyper(1)
                        .writeOpaque("rdma-cb".getBytes(StandardCharsets.UTF_8), 1024).writeInt(0)
                        .writeEnum(SP4_NONE).writeUnsignedInt(0)).get(TIMEOUT, TimeUnit.SECONDS)) {
                    XdrDecoder r = skipHeader(x, OP_EXCHANGE_ID);
                    clientId = r.readHyper();
                    seq = r.readInt();
                }
                byte[] session;
                try (RpcReply c = rpc.call(PROGRAM, VERSION, NFSPROC4_COMPOUND, e -> {
                    e.writeString("", 64).writeUnsignedInt(2).writeUnsignedInt(1).writeInt(OP_CREATE_SESSION)
                            .writeHyper(clientId).writeInt(seq).writeInt(CREATE_SESSION4_FLAG_CONN_BACK_CHAN);
                    e.writeInt(0).writeInt(1 << 20).writeInt(1 << 20).writeInt(4096).writeInt(8).writeInt(4)
                            .writeUnsignedInt(0);
                    e.writeInt(0).writeInt(4096).writeInt(4096).writeInt(0).writeInt(2).writeInt(1).writeUnsignedInt(0);
                    e.writeInt(CB_PROGRAM).writeUnsignedInt(2).writeInt(AUTH_NONE).writeInt(AUTH_SYS).writeInt(7)
                            .writeString("client-host", 255).writeInt(0).writeInt(0).writeUnsignedInt(0);
                }).get(TIMEOUT, TimeUnit.SECONDS)) {
                    XdrDecoder r = skipHeader(c, OP_CREATE_SESSION);
                    session = r.readFixedOpaque(16);
                    r.readInt();
                    assertThat(r.readInt() & CREATE_SESSION4_FLAG_CONN_BACK_CHAN).as("back channel granted").isNotZero();
                }
                assertThat(cbNull).as("no callback before the client sequenced on the session").isNotDone();
                try (RpcReply s = rpc.call(PROGRAM, VERSION, NFSPROC4_COMPOUND, e -> e.writeString("", 64)
                        .writeUnsignedInt(1).writeUnsignedInt(1).writeInt(OP_SEQUENCE).writeFixedOpaque(session)
                        .writeInt(1).writeInt(0).writeInt(0).writeBoolean(false)).get(TIMEOUT, TimeUnit.SECONDS)) {
                    skipHeader(s, OP_SEQUENCE);
                }
                cbNull.get(TIMEOUT, TimeUnit.SECONDS);
                assertThat(cbSequenceSession.get(TIMEOUT, TimeUnit.SECONDS)).isEqualTo(session);
                // The server counts the CB_SEQUENCE reply after we sent it.
                assertThat(server.awaitNfs4CallbacksAnswered(2, java.time.Duration.ofSeconds(TIMEOUT))).isTrue();
                assertThat(server.nfs4CallbacksAnswered()).isEqualTo(2);
                assertThat(cbCompounds.get()).as("CB_SEQUENCE sent again after NFS4ERR_DELAY").isEqualTo(2);
            } finally {
                requester.close();
            }
        }
    }

    private static XdrDecoder skipHeader(RpcReply reply, int opcode) {
        XdrDecoder r = reply.results();
        assertThat(r.readInt()).isEqualTo(NFS4_OK);
        r.readOpaque(64);
        r.readInt();
        assertThat(r.readInt()).isEqualTo(opcode);
        assertThat(r.readInt()).isEqualTo(NFS4_OK);
        return r;
    }
}
