package org.iwarp4j.cli.nfs;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import org.iwarp4j.cli.IwarpCommand;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * {@code iwarp nfs serve}'s access control from the command line: the defaults (read-only, root
 * squash, loopback clients) printed and enforced over RPC-over-RDMA and TCP, and {@code --client}
 * shutting out a client that is not listed.
 */
class NfsServeAccessTest {

    @TempDir
    Path exported;
    @TempDir
    Path local;
    private InProcessNfsServe server;
    private String ports;
    private final StringWriter out = new StringWriter();
    private final StringWriter err = new StringWriter();

    private void serve(String... options) throws Exception {
        server = InProcessNfsServe.start(exported, options);
        ports = server.portOptions();
    }

    @AfterEach
    void stop() throws Exception {
        if (server != null) {
            server.stop();
        }
    }

    private int iwarp(String line) {
        out.getBuffer().setLength(0);
        err.getBuffer().setLength(0);
        return IwarpCommand.run(new PrintWriter(out, true), new PrintWriter(err, true), line.split(" "));
    }

    @ParameterizedTest
    @ValueSource(strings = {"rdma", "tcp"})
    void byDefaultTheExportIsReadOnlyWithRootSquashedAndSaysSo(String transport) throws Exception {
        Files.writeString(exported.resolve("readme.txt"), "hello");
        // a squashed root is "other" to the root-owned directory: let others list it
        Files.setPosixFilePermissions(exported, PosixFilePermissions.fromString("rwxr-xr-x"));
        Path original = Files.writeString(local.resolve("data.bin"), "data");
        serve();
        assertThat(server.output())
                .contains("# export /export: read-only, root squash (anonuid 65534, anongid 65534), "
                        + "clients 127.0.0.0/8 ::1/128")
                .contains("# each call acts as its AUTH_SYS uid/gid after squashing")
                .containsPattern("mount -t nfs -o vers=3,proto=rdma,port=\\d+,mountport=\\d+,mountproto=tcp,nolock,ro "
                        + "127\\.0\\.0\\.1:/export /mnt")
                .containsPattern("mount -t nfs -o vers=3,proto=tcp,port=\\d+,mountport=\\d+,mountproto=tcp,nolock,ro "
                        + "127\\.0\\.0\\.1:/export /mnt");
        String t = ports + " --transport " + transport + " --vers 3";

        assertThat(iwarp("nfs ls 127.0.0.1:/export" + t)).as(err.toString()).isZero();
        assertThat(out.toString().strip()).isEqualTo("readme.txt");
        assertThat(iwarp("nfs put " + original + " 127.0.0.1:/export" + t)).isEqualTo(1);
        assertThat(err.toString()).contains("NFS3ERR_ROFS");
        assertThat(exported.resolve("data.bin")).doesNotExist();
    }

    @Test
    void rootSquashedOnAReadWriteExportMayNotWriteRootsDirectory() throws Exception {
        Path original = Files.writeString(local.resolve("data.bin"), "data");
        serve("--rw", "--anonuid", "4000", "--anongid", "4001");
        assertThat(server.output()).contains("# export /export: read-write, root squash (anonuid 4000, "
                + "anongid 4001)");
        // the export's directory is root's, mode 0700 (a temporary directory): uid 0 acts as 4000
        Files.setPosixFilePermissions(exported, PosixFilePermissions.fromString("rwx------"));
        assertThat(iwarp("nfs put " + original + " 127.0.0.1:/export" + ports + " --transport tcp --vers 3")).isEqualTo(1);
        assertThat(err.toString()).contains("NFS3ERR_ACCES");
        assertThat(exported.resolve("data.bin")).doesNotExist();
    }

    /**
     * Listening on every interface with only loopback clients admitted, the printed lines name
     * 127.0.0.1: an interface's address would be refused (the client's source address would be
     * that interface's too), so the iwarp4j client line works as printed.
     */
    @Test
    void onEveryInterfaceWithLoopbackClientsOnlyThePrintedLinesNameLoopback() throws Exception {
        Files.writeString(exported.resolve("readme.txt"), "hello");
        Files.setPosixFilePermissions(exported, PosixFilePermissions.fromString("rwxr-xr-x"));
        serve("--bind", "0.0.0.0");
        String output = server.output();
        assertThat(output).contains("# only loopback clients are admitted: --client ADDR[/PREFIX] admits others")
                .containsPattern("mount -t nfs -o proto=rdma,port=\\d+,ro 127\\.0\\.0\\.1:/ /mnt")
                .containsPattern("mount -t nfs -o vers=3,proto=tcp,port=\\d+,mountport=\\d+,mountproto=tcp,nolock,ro "
                        + "127\\.0\\.0\\.1:/export /mnt");
        java.util.regex.Matcher line = java.util.regex.Pattern.compile("# iwarp4j client: \\./iwarp (nfs ls 127\\.0\\.0\\.1:/export.*)")
                .matcher(output);
        assertThat(line.find()).as(output).isTrue();
        assertThat(iwarp(line.group(1).strip())).as(err.toString()).isZero();
        assertThat(out.toString().strip()).isEqualTo("readme.txt");
    }

    @Test
    void aClientNotListedCannotMount() throws Exception {
        serve("--client", "192.0.2.0/24", "--client", "2001:db8::/32");
        assertThat(server.output()).contains("clients 192.0.2.0/24 2001:db8::/32");
        assertThat(iwarp("nfs ls 127.0.0.1:/export" + ports + " --transport tcp --vers 3")).isEqualTo(1);
        assertThat(err.toString()).contains("MNT /export: MNT3ERR_ACCES");
    }
}
