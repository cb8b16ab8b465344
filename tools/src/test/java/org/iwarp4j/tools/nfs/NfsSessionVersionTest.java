package org.iwarp4j.tools.nfs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.iwarp4j.nfs.ExportOptions;
import org.iwarp4j.nfs.Nfs4StatusException;
import org.iwarp4j.nfs.NfsServer;
import org.iwarp4j.oncrpc.RpcProgramMismatchException;
import org.iwarp4j.rdmap.Rnic;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link NfsSession} in each version against our server: by default the highest it offers (4.2),
 * 4.1 and 3 when asked, NFSv3 when the server has no NFS version 4 (PROG_MISMATCH), and an NFSv4
 * asked for explicitly from such a server fails; NFSv4 paths are looked up from the server's root,
 * or below the export when they name it; the same files over RDMA.
 */
class NfsSessionVersionTest {

    @TempDir
    Path dir;

    private NfsServer.Builder server() {
        return NfsServer.builder(dir).exportName("/export")
                .exportOptions(ExportOptions.builder().readWrite().rootSquash(false).build())
                .tcpAddress(new InetSocketAddress("127.0.0.1", 0)).workerThreads(2);
    }

    private static NfsServerAccess access(NfsServer s, NfsTransport transport) {
        return new NfsServerAccess(s.tcpPort(), transport == NfsTransport.RDMA ? s.rdmaPort() : 20049, s.tcpPort(),
                null, 0, 0, Duration.ofSeconds(20));
    }

    private static NfsSession open(NfsServer s, String path, NfsTransport transport, NfsVersion version)
            throws Exception {
        return NfsSession.open(NfsLocation.parse("127.0.0.1:" + path), access(s, transport), transport, 256 * 1024, 4,
                null, null, version);
    }

    private static String get(NfsSession session, String path) throws Exception {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        session.files().download(path, out);
        return out.toString(StandardCharsets.UTF_8);
    }

    @Test
    void theHighestVersionByDefaultAndEachWhenAsked() throws Exception {
        Files.writeString(dir.resolve("hello.txt"), "hello");
        try (NfsServer s = server().start()) {
            try (NfsSession v = open(s, "/export", NfsTransport.TCP, NfsVersion.HIGHEST)) {
                assertThat(v.version()).isEqualTo(NfsVersion.V4_2);
                assertThat(v.client4()).isNotNull();
                assertThat(v.path()).as("our server's NFSv4 root is the export: the path below it").isEmpty();
                assertThat(v.export()).isEqualTo("/export");
                assertThat(v.files().list(v.path())).extracting(NfsFileInfo::name).containsExactly("hello.txt");
                assertThat(get(v, "hello.txt")).isEqualTo("hello");
                assertThatThrownBy(v::client).isInstanceOf(IllegalStateException.class);
            }
            try (NfsSession v = open(s, "/hello.txt", NfsTransport.TCP, NfsVersion.V4_1)) {
                assertThat(v.version()).isEqualTo(NfsVersion.V4_1);
                assertThat(v.path()).as("a path from the NFSv4 root, as mount -t nfs4 server:/path").isEqualTo("hello.txt");
                assertThat(v.files().stat(v.path()).size()).isEqualTo(5);
            }
            try (NfsSession v = open(s, "/export/hello.txt", NfsTransport.TCP, NfsVersion.V3)) {
                assertThat(v.version()).isEqualTo(NfsVersion.V3);
                assertThat(v.client()).isNotNull();
                assertThat(v.path()).isEqualTo("hello.txt");
                assertThat(get(v, v.path())).isEqualTo("hello");
                v.files().upload(new ByteArrayInputStream(new byte[] {7}), "seven");
                assertThat(v.files().stat("seven").size()).isEqualTo(1);
                v.files().remove("seven");
                assertThat(dir.resolve("seven")).doesNotExist();
            }
            try (NfsSession v = open(s, "/export/missing/x", NfsTransport.TCP, NfsVersion.V4_2)) {
                assertThatThrownBy(() -> v.files().stat(v.path())).isInstanceOfSatisfying(Nfs4StatusException.class,
                        e -> assertThat(e).hasMessage("LOOKUP export: NFS4ERR_NOENT"));
            }
        }
    }

    @Test
    void versionThreeWhenTheServerHasNoVersionFour() throws Exception {
        Files.writeString(dir.resolve("f"), "three");
        try (NfsServer s = server().nfs4(false).start()) {
            try (NfsSession v = open(s, "/export", NfsTransport.TCP, NfsVersion.HIGHEST)) {
                assertThat(v.version()).as("PROG_MISMATCH for version 4: NFSv3").isEqualTo(NfsVersion.V3);
                assertThat(get(v, "f")).isEqualTo("three");
            }
            assertThatThrownBy(() -> open(s, "/export", NfsTransport.TCP, NfsVersion.V4_1))
                    .hasCauseInstanceOf(RpcProgramMismatchException.class).satisfies(e -> assertThat(
                            NfsSession.noVersionFour(e)).isTrue());
        }
    }

    @Test
    void versionFourOverRdma() throws Exception {
        byte[] data = new byte[700_000];
        new java.util.Random(3).nextBytes(data);
        try (Rnic rnic = Rnic.builder().name("server").build();
             NfsServer s = server().rdmaAddress(new InetSocketAddress("127.0.0.1", 0)).rnic(rnic).start();
             NfsSession v = open(s, "/export", NfsTransport.RDMA, NfsVersion.HIGHEST)) {
            assertThat(v.version()).isEqualTo(NfsVersion.V4_2);
            assertThat(v.rnic()).isNotNull();
            assertThat(v.files().upload(new ByteArrayInputStream(data), "r.bin")).isEqualTo(data.length);
            assertThat(Files.readAllBytes(dir.resolve("r.bin"))).isEqualTo(data);
            ByteArrayOutputStream back = new ByteArrayOutputStream();
            assertThat(v.files().download("r.bin", back)).isEqualTo(data.length);
            assertThat(back.toByteArray()).isEqualTo(data);
        }
    }
}
