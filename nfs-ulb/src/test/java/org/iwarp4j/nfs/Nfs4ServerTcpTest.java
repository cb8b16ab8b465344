package org.iwarp4j.nfs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.iwarp4j.nfs.v4.Nfs4Constants.*;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.iwarp4j.oncrpc.AuthSys;
import org.iwarp4j.oncrpc.RpcClient;
import org.iwarp4j.oncrpc.RpcProgramMismatchException;
import org.iwarp4j.oncrpc.RpcReply;
import org.iwarp4j.oncrpc.RpcTcpClientTransport;
import org.iwarp4j.oncrpc.XdrDecoder;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * NFS version 4 beside version 3 on one TCP port of an {@link NfsServer}: NULL, a COMPOUND of
 * minor version 0 (NFS4ERR_MINOR_VERS_MISMATCH), a 4.1 session set up and used, and a version the
 * server does not serve (PROG_MISMATCH 3..4 and a log line naming the version asked for).
 */
class Nfs4ServerTcpTest {

    @TempDir
    Path dir;

    private static final int TIMEOUT = 20;

    @Test
    void versionFourBesideVersionThreeOnOnePort() throws Exception {
        try (NfsServer server = NfsServer.builder(dir).exportOptions(NfsTcpFixture.TRUSTED_ROOT)
                .tcpAddress(new InetSocketAddress("127.0.0.1", 0)).workerThreads(2).start();
             RpcClient rpc = RpcClient.builder(RpcTcpClientTransport.connect(
                     new InetSocketAddress("127.0.0.1", server.tcpPort())).get(TIMEOUT, TimeUnit.SECONDS))
                     .credential(new AuthSys(0, "test", 0, 0, new int[0])).build()) {
            try (RpcReply nul = rpc.call(PROGRAM, VERSION, NFSPROC4_NULL, e -> { }).get(TIMEOUT, TimeUnit.SECONDS)) {
                assertThat(nul.results().isEmpty()).isTrue();
            }
            try (RpcReply v0 = rpc.call(PROGRAM, VERSION, NFSPROC4_COMPOUND, e -> e.writeString("zero", 64)
                    .writeUnsignedInt(0).writeUnsignedInt(1).writeInt(OP_PUTROOTFH)).get(TIMEOUT, TimeUnit.SECONDS)) {
                XdrDecoder r = v0.results();
                assertThat(r.readInt()).isEqualTo(NFS4ERR_MINOR_VERS_MISMATCH);
                assertThat(r.readString(64)).isEqualTo("zero");
                assertThat(r.readInt()).isZero();
            }
            long clientId;
            int seq;
            try (RpcReply x = rpc.call(PROGRAM, VERSION, NFSPROC4_COMPOUND, e -> e.writeString("", 64)
                    .writeUnsignedInt(1).writeUnsignedInt(1).writeInt(OP_EXCHANGE_ID).writeHyper(1)
                    .writeOpaque("tcp-test".getBytes(StandardCharsets.UTF_8), 1024).writeInt(0).writeEnum(SP4_NONE)
                    .writeUnsignedInt(0)).get(TIMEOUT, TimeUnit.SECONDS)) {
                XdrDecoder r = x.results();
                assertThat(r.readInt()).isEqualTo(NFS4_OK);
                r.readString(64);
                r.readInt();
                assertThat(r.readInt()).isEqualTo(OP_EXCHANGE_ID);
                assertThat(r.readInt()).isEqualTo(NFS4_OK);
                clientId = r.readHyper();
                seq = r.readInt();
            }
            byte[] session;
            try (RpcReply c = rpc.call(PROGRAM, VERSION, NFSPROC4_COMPOUND, e -> {
                e.writeString("", 64).writeUnsignedInt(1).writeUnsignedInt(1).writeInt(OP_CREATE_SESSION)
                        .writeHyper(clientId).writeInt(seq).writeInt(0);
                for (int i = 0; i < 2; i++) {
                    e.writeInt(0).writeInt(1 << 20).writeInt(1 << 20).writeInt(4096).writeInt(8).writeInt(4)
                            .writeUnsignedInt(0);
                }
                e.writeInt(0x40000000).writeUnsignedInt(0);
            }).get(TIMEOUT, TimeUnit.SECONDS)) {
                XdrDecoder r = c.results();
                assertThat(r.readInt()).isEqualTo(NFS4_OK);
                r.readString(64);
                r.readInt();
                r.readInt();
                r.readInt();
                session = r.readFixedOpaque(16);
            }
            try (RpcReply g = rpc.call(PROGRAM, VERSION, NFSPROC4_COMPOUND, e -> e.writeString("", 64)
                    .writeUnsignedInt(2).writeUnsignedInt(3).writeInt(OP_SEQUENCE).writeFixedOpaque(session).writeInt(1)
                    .writeInt(0).writeInt(0).writeBoolean(false).writeInt(OP_PUTROOTFH).writeInt(OP_GETFH))
                    .get(TIMEOUT, TimeUnit.SECONDS)) {
                XdrDecoder r = g.results();
                assertThat(r.readInt()).isEqualTo(NFS4_OK);
                r.readString(64);
                assertThat(r.readInt()).isEqualTo(3);
                r.skip(8 + 16 + 20);
                r.skip(8);
                assertThat(r.readInt()).isEqualTo(OP_GETFH);
                assertThat(r.readInt()).isEqualTo(NFS4_OK);
                assertThat(r.readOpaque(128)).isEqualTo(server.rootHandle().data());
            }
        }
    }

    @Test
    void anUnservedVersionIsProgMismatchAndLogged() throws Exception {
        PrintStream stderr = System.err;
        ByteArrayOutputStream log = new ByteArrayOutputStream();
        try (NfsServer server = NfsServer.builder(dir).tcpAddress(new InetSocketAddress("127.0.0.1", 0))
                .workerThreads(1).start();
             RpcClient rpc = RpcClient.builder(RpcTcpClientTransport.connect(
                     new InetSocketAddress("127.0.0.1", server.tcpPort())).get(TIMEOUT, TimeUnit.SECONDS)).build()) {
            System.setErr(new PrintStream(log, true, StandardCharsets.UTF_8));
            try {
                assertThatThrownBy(() -> rpc.call(PROGRAM, 2, 0, e -> { }).get(TIMEOUT, TimeUnit.SECONDS))
                        .isInstanceOf(ExecutionException.class).cause()
                        .isInstanceOfSatisfying(RpcProgramMismatchException.class, m -> {
                            assertThat(m.low()).isEqualTo(3);
                            assertThat(m.high()).isEqualTo(4);
                        });
            } finally {
                System.setErr(stderr);
            }
        }
        assertThat(log.toString(StandardCharsets.UTF_8)).contains("PROG_MISMATCH: program 100003 version 2 asked by");
    }
}
