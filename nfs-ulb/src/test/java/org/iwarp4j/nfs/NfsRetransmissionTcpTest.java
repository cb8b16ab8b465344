package org.iwarp4j.nfs;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HexFormat;
import org.iwarp4j.nfs.v3.Nfs3Status;
import org.iwarp4j.oncrpc.DuplicateRequestCacheLimits;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A retransmitted NFSv3 REMOVE, octets on the wire over TCP: the server's duplicate request cache
 * answers it with the first reply, on the same connection or a new one (a client that reconnected),
 * where a second execution would answer NFS3ERR_NOENT for a file the client did remove.
 */
class NfsRetransmissionTcpTest {

    private static final int NFS_PROGRAM = 100003;
    private static final int NFSPROC3_REMOVE = 12;

    @TempDir
    Path dir;

    private NfsServer start(DuplicateRequestCacheLimits cache, SimpleMeterRegistry meters) throws IOException {
        return NfsServer.builder(dir).exportOptions(NfsTcpFixture.TRUSTED_ROOT)
                .tcpAddress(new InetSocketAddress("127.0.0.1", 0)).workerThreads(2)
                .duplicateRequestCache(cache).meterRegistry(meters).start();
    }

    /** The root's file handle, from the server's MOUNT through our client. */
    private static byte[] rootHandle(NfsServer server) throws IOException {
        try (NfsClient client = NfsClient.builder(new InetSocketAddress("127.0.0.1", server.tcpPort())).connect()) {
            return client.root().data();
        }
    }

    /** One record: REMOVE(dir, name) with AUTH_SYS uid 0, as a client retransmits it octet for octet. */
    private static byte[] removeCall(int xid, byte[] dirHandle, String name) throws IOException {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        DataOutputStream out = new DataOutputStream(bytes);
        out.writeInt(xid);
        out.writeInt(0); // CALL
        out.writeInt(2); // RPC version
        out.writeInt(NFS_PROGRAM);
        out.writeInt(3);
        out.writeInt(NFSPROC3_REMOVE);
        byte[] machine = "client".getBytes(StandardCharsets.US_ASCII);
        out.writeInt(1); // AUTH_SYS
        out.writeInt(4 + 4 + 8 + 4 + 4 + 4); // stamp, machinename (6 + 2 pad), uid, gid, no gids
        out.writeInt(0x5eed);
        opaque(out, machine);
        out.writeInt(0);
        out.writeInt(0);
        out.writeInt(0);
        out.writeLong(0); // AUTH_NONE verifier
        opaque(out, dirHandle);
        opaque(out, name.getBytes(StandardCharsets.US_ASCII));
        byte[] call = bytes.toByteArray();
        return ByteBuffer.allocate(4 + call.length).putInt(0x8000_0000 | call.length).put(call).array();
    }

    private static void opaque(DataOutputStream out, byte[] data) throws IOException {
        out.writeInt(data.length);
        out.write(data);
        out.write(new byte[-data.length & 3]);
    }

    /** Sends one record and reads the reply record (one fragment). */
    private static byte[] exchange(Socket socket, byte[] record) throws IOException {
        socket.getOutputStream().write(record);
        DataInputStream in = new DataInputStream(socket.getInputStream());
        int mark = in.readInt();
        assertThat(mark & 0x8000_0000).as("last fragment").isNotZero();
        byte[] reply = new byte[mark & 0x7fff_ffff];
        in.readFully(reply);
        return reply;
    }

    private static Socket connect(NfsServer server) throws IOException {
        Socket socket = new Socket("127.0.0.1", server.tcpPort());
        socket.setSoTimeout(20_000);
        return socket;
    }

    /** The REMOVE3res status after the 24-octet accepted reply header (xid, REPLY, ACCEPTED, verifier, SUCCESS). */
    private static int status(byte[] reply) {
        assertThat(HexFormat.of().formatHex(reply, 4, 24)).as("accepted, SUCCESS").isEqualTo("00000001" + "00000000"
                + "0000000000000000" + "00000000");
        return ByteBuffer.wrap(reply).getInt(24);
    }

    @Test
    void aRetransmittedRemoveGetsTheFirstReplyOnTheSameConnectionAndOnANewOne() throws Exception {
        SimpleMeterRegistry meters = new SimpleMeterRegistry();
        try (NfsServer server = start(DuplicateRequestCacheLimits.DEFAULT, meters)) {
            Files.createFile(dir.resolve("victim"));
            byte[] remove = removeCall(0x51, rootHandle(server), "victim");
            byte[] first;
            try (Socket socket = connect(server)) {
                first = exchange(socket, remove);
                assertThat(status(first)).isEqualTo(Nfs3Status.NFS3_OK.value());
                assertThat(dir.resolve("victim")).doesNotExist();
                assertThat(exchange(socket, remove)).as("retransmitted on the same connection").isEqualTo(first);
            }
            try (Socket reconnected = connect(server)) {
                assertThat(exchange(reconnected, remove)).as("retransmitted after a reconnect").isEqualTo(first);
                assertThat(status(exchange(reconnected, removeCall(0x52, rootHandle(server), "victim"))))
                        .as("a new call does run: this is what a second execution answers")
                        .isEqualTo(Nfs3Status.NFS3ERR_NOENT.value());
            }
            assertThat(meters.get("iwarp.oncrpc.duplicates").tag("outcome", "replayed").counter().count()).isEqualTo(2);
        }
    }

    @Test
    void withoutTheCacheTheRetransmissionRunsAgainAndFails() throws Exception {
        try (NfsServer server = start(DuplicateRequestCacheLimits.OFF, new SimpleMeterRegistry())) {
            Files.createFile(dir.resolve("victim"));
            byte[] remove = removeCall(0x61, rootHandle(server), "victim");
            try (Socket socket = connect(server)) {
                assertThat(status(exchange(socket, remove))).isEqualTo(Nfs3Status.NFS3_OK.value());
                assertThat(status(exchange(socket, remove))).isEqualTo(Nfs3Status.NFS3ERR_NOENT.value());
            }
        }
    }
}
