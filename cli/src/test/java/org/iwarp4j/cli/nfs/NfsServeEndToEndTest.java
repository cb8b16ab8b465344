package org.iwarp4j.cli.nfs;

import org.iwarp4j.tools.nfs.Sha256;
import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Random;
import org.iwarp4j.cli.IwarpCommand;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * {@code iwarp nfs serve} in this process on ephemeral loopback ports, and the client commands
 * against it over RPC-over-RDMA and over TCP: put (read back, SHA-256), ls, get (SHA-256 against
 * the local copy), errors and their exit statuses. MOUNT goes over TCP in both cases (ULB-R-010),
 * and the server that serves NFS over RDMA serves it over TCP as well (RPC-R-079).
 * The client commands act as uid 0, so the export is {@code --rw --no-root-squash};
 * {@link NfsServeAccessTest} has the defaults.
 */
class NfsServeEndToEndTest {

    @TempDir
    Path exported;
    @TempDir
    Path local;
    private InProcessNfsServe server;
    private String ports;
    private int tcpPort;
    private int rdmaPort;
    private final StringWriter out = new StringWriter();
    private final StringWriter err = new StringWriter();

    @BeforeEach
    void serve() throws Exception {
        server = InProcessNfsServe.start(exported, "--rw", "--no-root-squash");
        tcpPort = server.tcpPort();
        rdmaPort = server.rdmaPort();
        ports = server.portOptions();
    }

    @AfterEach
    void stop() throws Exception {
        server.stop();
        assertThat(server.output()).contains("# iwarp nfs serve: stopped");
    }

    private int iwarp(String line) {
        out.getBuffer().setLength(0);
        err.getBuffer().setLength(0);
        return IwarpCommand.run(new PrintWriter(out, true), new PrintWriter(err, true), line.split(" "));
    }

    @Test
    void bannerPrintsTheLinuxMountLinesForTheseExactPorts() throws Exception {
        String banner = server.output();
        assertThat(banner).contains("# iwarp nfs serve: exporting " + exported.toRealPath() + " as /export")
                .contains("# export /export: read-write, no root squash, clients 127.0.0.0/8 ::1/128")
                .contains("root".equals(System.getProperty("user.name"))
                        ? "# new files belong to their creator (after squashing)"
                        : "# new files belong to this server's user, not their creator")
                .contains("mount -t nfs -o vers=3,proto=rdma,port=" + rdmaPort + ",mountport=" + tcpPort
                        + ",mountproto=tcp,nolock 127.0.0.1:/export /mnt")
                .contains("mount -t nfs -o vers=3,proto=tcp,port=" + tcpPort + ",mountport=" + tcpPort
                        + ",mountproto=tcp,nolock 127.0.0.1:/export /mnt")
                .contains("mount -t nfs -o proto=rdma,port=" + rdmaPort + " 127.0.0.1:/ /mnt")
                .contains("mount -t nfs -o proto=tcp,port=" + tcpPort + " 127.0.0.1:/ /mnt")
                .contains("./iwarp nfs ls 127.0.0.1:/export" + ports)
                .contains("# duplicate request cache: the last 8192 changing NFSv3 calls, replies up to 1024 octets, "
                        + "for 120 s");
    }

    @Test
    void theDuplicateRequestCacheIsSizedOrTurnedOffFromTheCommandLine() throws Exception {
        for (String entries : new String[] {"16", "0"}) {
            InProcessNfsServe other = InProcessNfsServe.start(exported, "--drc-entries", entries);
            try {
                assertThat(other.output()).contains(entries.equals("0")
                        ? "# duplicate request cache: off (a retransmitted call is executed again)"
                        : "# duplicate request cache: the last 16 changing NFSv3 calls");
            } finally {
                other.stop();
            }
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"rdma", "tcp"})
    void putLsGetRoundTrip(String transport) throws Exception {
        byte[] data = new byte[300_000 + transport.length()];
        new Random(transport.hashCode()).nextBytes(data);
        Path original = local.resolve("data.bin");
        Files.write(original, data);
        Files.createDirectory(exported.resolve("dir"));
        String t = ports + " --transport " + transport + " --vers 3";

        assertThat(iwarp("nfs put " + original + " 127.0.0.1:/export/dir" + t)).as(err.toString()).isZero();
        String sha = Sha256.hex(Sha256.of(original));
        assertThat(out.toString()).contains("-> 127.0.0.1:/export/dir/data.bin: " + data.length + " octets over "
                        + (transport.equals("rdma") ? "RPC-over-RDMA (port " + rdmaPort : "TCP (port " + tcpPort))
                .contains("SHA-256 " + sha).contains("# verified: read back over " + transport.toUpperCase());
        assertThat(Files.readAllBytes(exported.resolve("dir/data.bin"))).isEqualTo(data);

        assertThat(iwarp("nfs ls 127.0.0.1:/export/dir" + t)).as(err.toString()).isZero();
        assertThat(out.toString().strip()).isEqualTo("data.bin");
        assertThat(iwarp("nfs ls -l 127.0.0.1:/export" + t)).as(err.toString()).isZero();
        assertThat(out.toString()).containsPattern("(?m)^drwx.*\\sdir$");
        assertThat(iwarp("nfs ls -l 127.0.0.1:/export/dir/data.bin" + t)).as(err.toString()).isZero();
        assertThat(out.toString()).containsPattern("(?m)^-rw-r--r-- .*\\s" + data.length + " .* data\\.bin$");

        Path copy = local.resolve("copy.bin");
        assertThat(iwarp("nfs get 127.0.0.1:/export/dir/data.bin " + copy + t)).as(err.toString()).isZero();
        assertThat(Files.readAllBytes(copy)).isEqualTo(data);
        assertThat(out.toString()).contains("SHA-256 " + sha)
                .contains("# verified: " + data.length + " octets as GETATTR's size, and " + copy);
        // into a directory: the file keeps its name
        assertThat(iwarp("nfs get 127.0.0.1:/export/dir/data.bin " + local + t)).as(err.toString()).isZero();
        assertThat(Files.readAllBytes(local.resolve("data.bin"))).isEqualTo(data);
    }

    /** Names and link targets are the server's: escape sequences in them are listed escaped. */
    @Test
    void namesAndLinkTargetsWithEscapeSequencesAreListedEscaped() throws Exception {
        Files.createFile(exported.resolve("a\u001b[2Jb"));
        Files.createSymbolicLink(exported.resolve("l"), Path.of("t\u001b]0;x\u0007t"));
        assertThat(iwarp("nfs ls -l 127.0.0.1:/export" + ports + " --transport tcp --vers 3")).as(err.toString())
                .isZero();
        assertThat(out.toString()).containsPattern("(?m)^-.* a\\\\x1b\\[2Jb$").contains(" l -> t\\x1b]0;x\\x07t")
                .doesNotContain("\u001b", "\u0007");
    }

    @ParameterizedTest
    @ValueSource(strings = {"rdma", "tcp"})
    void errorsAreExitOneWithTheNfsStatus(String transport) {
        String t = ports + " --transport " + transport + " --vers 3";
        assertThat(iwarp("nfs get 127.0.0.1:/export/missing " + local.resolve("x") + t)).isEqualTo(1);
        assertThat(err.toString()).contains("iwarp nfs get: LOOKUP missing: NFS3ERR_NOENT");
        assertThat(iwarp("nfs ls 127.0.0.1:/elsewhere" + t)).isEqualTo(1);
        assertThat(err.toString()).contains("no export of 127.0.0.1 holds /elsewhere (exports: /export)");
        assertThat(iwarp("nfs ls 127.0.0.1:/elsewhere --export /elsewhere" + t)).isEqualTo(1);
        assertThat(err.toString()).contains("MNT /elsewhere: MNT3ERR_NOENT");
        assertThat(iwarp("nfs get 127.0.0.1:/export " + local.resolve("y") + t)).isEqualTo(1);
        assertThat(err.toString()).contains("is not a regular file (NF3DIR)");
    }

    /**
     * The same round trip in NFSv4: by default the highest version the server offers (4.2), or 4.1
     * when asked; the path is looked up below the export (our server's NFSv4 root), NFS4ERR_NOENT
     * is exit status 1.
     */
    @ParameterizedTest(name = "{0} {1}")
    @CsvSource({"rdma, '', 4.2", "tcp, '', 4.2", "rdma, --vers 4.1, 4.1", "tcp, --vers 4.2, 4.2"})
    void putLsGetRoundTripInNfs4(String transport, String vers, String spoken) throws Exception {
        byte[] data = new byte[200_000 + vers.length()];
        new Random(vers.hashCode()).nextBytes(data);
        Path original = local.resolve("four.bin");
        Files.write(original, data);
        String t = ports + " --transport " + transport + (vers.isEmpty() ? "" : " " + vers);

        assertThat(iwarp("nfs put " + original + " 127.0.0.1:/export" + t)).as(err.toString()).isZero();
        assertThat(out.toString()).contains("-> 127.0.0.1:/export/four.bin: " + data.length + " octets over")
                .contains(", NFSv" + spoken + " in ").contains("SHA-256 " + Sha256.hex(Sha256.of(original)))
                .contains("# verified: read back over " + transport.toUpperCase());
        assertThat(Files.readAllBytes(exported.resolve("four.bin"))).isEqualTo(data);

        Files.createSymbolicLink(exported.resolve("four.link"), Path.of("four.bin"));
        assertThat(iwarp("nfs ls -l 127.0.0.1:/export" + t)).as(err.toString()).isZero();
        // owner and owner_group strings (our server names them by number), READLINK for the link's target
        Object uid = Files.getAttribute(exported.resolve("four.bin"), "unix:uid");
        Object gid = Files.getAttribute(exported.resolve("four.bin"), "unix:gid");
        assertThat(out.toString()).containsPattern("(?m)^-rw-r--r-- +1 +" + uid + " +" + gid + " +" + data.length
                + " .* four\\.bin$").containsPattern("(?m)^l.* four\\.link -> four\\.bin$");
        Files.delete(exported.resolve("four.link"));

        Path copy = local.resolve("copy4.bin");
        assertThat(iwarp("nfs get 127.0.0.1:/export/four.bin " + copy + t)).as(err.toString()).isZero();
        assertThat(Files.readAllBytes(copy)).isEqualTo(data);
        assertThat(out.toString()).contains(", NFSv" + spoken + " in ");

        assertThat(iwarp("nfs get 127.0.0.1:/export/missing " + local.resolve("x") + t)).isEqualTo(1);
        assertThat(err.toString()).contains("iwarp nfs get: LOOKUP missing: NFS4ERR_NOENT");
        assertThat(iwarp("nfs get 127.0.0.1:/export " + local.resolve("y") + t)).isEqualTo(1);
        assertThat(err.toString()).contains("is not a regular file (NF4DIR)");
    }

    @Test
    void noServerIsExitThree() throws Exception {
        int closed;
        try (ServerSocket probe = new ServerSocket(0)) {
            closed = probe.getLocalPort();
        }
        assertThat(iwarp("nfs ls 127.0.0.1:/export --vers 3 --port " + closed)).isEqualTo(3);
        assertThat(err.toString()).contains("MOUNT EXPORT at 127.0.0.1:" + closed);
        // MOUNT answers, but nothing listens for RPC-over-RDMA there
        assertThat(iwarp("nfs ls 127.0.0.1:/export --vers 3 --port " + tcpPort + " --rdma-port " + closed)).isEqualTo(3);
        assertThat(err.toString()).contains("NFS over RPC-over-RDMA to 127.0.0.1:" + closed)
                .contains(": Connection refused").doesNotContain("finishConnect");
        assertThat(iwarp("nfs ls 127.0.0.1:/export --port " + tcpPort + " --rdma-port " + closed)).isEqualTo(3);
        assertThat(err.toString()).contains("NFSv4 over RPC-over-RDMA to 127.0.0.1:" + closed + ": Connection refused");
        // NFSv4 (the default) has no MOUNT: the first connection is the NFS one
        assertThat(iwarp("nfs ls 127.0.0.1:/export --transport tcp --port " + closed)).isEqualTo(3);
        assertThat(err.toString()).contains("NFSv4 over TCP to 127.0.0.1:" + closed);
    }
}
