package org.iwarp4j.nfs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.iwarp4j.nfs.NfsTcpFixture.ascii;
import static org.iwarp4j.nfs.NfsTcpFixture.get;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.HexFormat;
import java.util.Random;
import org.iwarp4j.nfs.binding.NfsBindingConstants;
import org.iwarp4j.nfs.v3.Create3Args;
import org.iwarp4j.nfs.v3.Create3Res;
import org.iwarp4j.nfs.v3.DirOpArgs3;
import org.iwarp4j.nfs.v3.Ftype3;
import org.iwarp4j.nfs.v3.Nfs3Status;
import org.iwarp4j.nfs.v3.NfsFh3;
import org.iwarp4j.nfs.v3.Read3Res;
import org.iwarp4j.nfs.v3.Readdirplus3Args;
import org.iwarp4j.nfs.v3.Readdirplus3Res;
import org.iwarp4j.nfs.v3.Sattr3;
import org.iwarp4j.nfs.v3.StableHow;
import org.iwarp4j.rdmap.Rnic;
import org.iwarp4j.rpcrdma.RpcRdmaRequester;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * NFSv3 over RPC-over-RDMA between our server and our client on two software RNICs over loopback,
 * MOUNT over TCP (RFC 8267 §5.1). The RNICs' meters show the RFC 8267 §4 data path: WRITE data
 * pulled by the server with RDMA Read (Read chunks), READ data pushed with RDMA Write (Write
 * chunks), as Linux does it.
 */
class NfsRdmaTest {

    @TempDir
    Path dir;
    private final SimpleMeterRegistry serverMeters = new SimpleMeterRegistry();
    private Rnic serverRnic;
    private Rnic clientRnic;
    private NfsServer server;
    private NfsClient client;

    @BeforeEach
    void start() throws Exception {
        serverRnic = Rnic.builder().name("server").meterRegistry(serverMeters).build();
        clientRnic = Rnic.builder().name("client").build();
        server = NfsServer.builder(dir).exportOptions(NfsTcpFixture.TRUSTED_ROOT)
                .tcpAddress(new InetSocketAddress("127.0.0.1", 0))
                .rdmaAddress(new InetSocketAddress("127.0.0.1", 0)).rnic(serverRnic).workerThreads(2).start();
        client = NfsClient.builder(new InetSocketAddress("127.0.0.1", server.tcpPort()))
                .rdma(clientRnic, new InetSocketAddress("127.0.0.1", server.rdmaPort()))
                .maxTransfer(256 * 1024).connect();
    }

    @AfterEach
    void stop() {
        if (client != null) {
            client.close();
        }
        if (server != null) {
            server.close();
        }
        clientRnic.close();
        serverRnic.close();
    }

    private double serverSent(String opcode) {
        return serverMeters.get("iwarp.rdmap.messages").tag("direction", "tx").tag("opcode", opcode).counter().count();
    }

    private static String sha256(byte[] data) throws Exception {
        return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(data));
    }

    @Test
    void transportIsRdmaAndTheDefaultPortIsNfsRdma() {
        assertThat(client.transport()).isInstanceOf(RpcRdmaRequester.class);
        assertThat(client.transport().name()).isEqualTo("rdma");
        assertThat(NfsBindingConstants.NFS_RDMA_PORT).isEqualTo(20049);
    }

    /** 1 MiB + a tail up and down with SHA-256 on both sides; the data moved by RDMA Read and RDMA Write. */
    @Test
    void uploadAndDownloadOneMebibyteOverRdma() throws Exception {
        byte[] data = new byte[(1 << 20) + 777];
        new Random(11).nextBytes(data);
        assertThat(client.upload(new ByteArrayInputStream(data), "big.bin")).isEqualTo(data.length);
        assertThat(sha256(Files.readAllBytes(dir.resolve("big.bin")))).isEqualTo(sha256(data));
        // Each full WRITE's data came through a Read chunk; the 777-octet tail fits the 4 KiB inline threshold.
        long fullChunks = data.length / client.writeSize();
        assertThat(serverSent("rdma_read_request")).as("WRITE data pulled through Read chunks")
                .isGreaterThanOrEqualTo(fullChunks);

        ByteArrayOutputStream back = new ByteArrayOutputStream();
        assertThat(client.download("big.bin", back)).isEqualTo(data.length);
        assertThat(sha256(back.toByteArray())).isEqualTo(sha256(data));
        assertThat(serverSent("rdma_write")).as("READ data pushed into Write chunks")
                .isGreaterThanOrEqualTo(data.length / client.readSize());
    }

    /** The namespace procedures over RDMA, the DDP-eligible SYMLINK/READLINK paths and a long READDIRPLUS reply. */
    @Test
    void proceduresOverRdma() throws Exception {
        NfsFh3 root = client.root();
        Create3Res f = get(client.create(Create3Args.guarded(new DirOpArgs3(root, "f"), Sattr3.mode(0600))));
        assertThat(f.status()).isEqualTo(Nfs3Status.NFS3_OK);
        assertThat(get(client.write(f.obj(), 0, ascii("small"), StableHow.FILE_SYNC)).count()).isEqualTo(5);
        Read3Res r = get(client.read(f.obj(), 0, 100));
        try {
            assertThat(r.data().toString(java.nio.charset.StandardCharsets.US_ASCII)).isEqualTo("small");
        } finally {
            r.release();
        }
        String target = "t".repeat(3000);
        Create3Res link = get(client.symlink(root, "link", target));
        assertThat(link.status()).isEqualTo(Nfs3Status.NFS3_OK);
        assertThat(get(client.readlink(link.obj())).data()).isEqualTo(target);
        assertThat(Files.readSymbolicLink(dir.resolve("link")).toString()).isEqualTo(target);

        NfsFh3 d = get(client.mkdir(root, "d", Sattr3.mode(0755))).obj();
        for (int i = 0; i < 200; i++) {
            Files.createFile(dir.resolve("d/entry-with-a-longer-name-" + i));
        }
        Readdirplus3Res list = get(client.readdirplus(new Readdirplus3Args(d, 0, 0, 65536, 65536)));
        assertThat(list.status()).isEqualTo(Nfs3Status.NFS3_OK);
        assertThat(list.entries()).hasSize(202);
        assertThat(list.eof()).isTrue();

        assertThat(get(client.rename(root, "f", d, "g")).status()).isEqualTo(Nfs3Status.NFS3_OK);
        assertThat(get(client.lookup(d, "g")).objAttributes().type()).isEqualTo(Ftype3.NF3REG);
        assertThat(get(client.lookup(root, "f")).status()).isEqualTo(Nfs3Status.NFS3ERR_NOENT);
        assertThat(get(client.remove(d, "g")).status()).isEqualTo(Nfs3Status.NFS3_OK);
        assertThat(get(client.rmdir(root, "d")).status()).isEqualTo(Nfs3Status.NFS3ERR_NOTEMPTY);
        assertThat(get(client.fsstat(root)).status()).isEqualTo(Nfs3Status.NFS3_OK);
        assertThat(get(client.pathconf(root)).nameMax()).isEqualTo(255);
        assertThat(get(client.commit(link.obj(), 0, 0)).status()).isEqualTo(Nfs3Status.NFS3ERR_INVAL);
    }
}
