package org.iwarp4j.cli.nfs;

import org.iwarp4j.cli.Octets;
import org.iwarp4j.tools.nfs.MountExports;
import org.iwarp4j.tools.nfs.NfsBenchSettings;
import org.iwarp4j.tools.nfs.NfsLocation;
import org.iwarp4j.tools.nfs.NfsVersion;
import org.iwarp4j.tools.nfs.NfsTransport;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Path;
import java.util.List;
import org.iwarp4j.cli.IwarpCommand;
import org.iwarp4j.nfs.v3.Fattr3;
import org.iwarp4j.nfs.v3.Ftype3;
import org.iwarp4j.nfs.v3.NfsTime3;
import org.iwarp4j.nfs.v3.SpecData3;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;
import picocli.CommandLine.TypeConversionException;

/** {@code iwarp nfs}: help on every command, SERVER:/path and size parsing, usage errors exit with status 2. */
class NfsCommandLineTest {

    @TempDir
    Path dir;
    private final StringWriter out = new StringWriter();
    private final StringWriter err = new StringWriter();

    private int iwarp(String line) {
        return IwarpCommand.run(new PrintWriter(out, true), new PrintWriter(err, true),
                line.replace("DIR", dir.toString()).split(" "));
    }

    @Test
    void iwarpHelpListsNfsAndNfsHelpListsItsCommands() {
        assertThat(iwarp("--help")).isZero();
        assertThat(out.toString()).contains("nfs");
        out.getBuffer().setLength(0);
        assertThat(iwarp("nfs --help")).isZero();
        assertThat(out.toString()).contains("serve").contains("ls").contains("get").contains("put").contains("bench")
                .contains("MOUNT always travels over TCP");
    }

    @Test
    void serveHelpNamesThePortsRfc8267Uses() {
        assertThat(iwarp("nfs serve --help")).isZero();
        // ULB-R-009 / ULB-R-015: NFS over RPC-over-RDMA on 20049 by convention; ULB-R-010: MOUNT over TCP
        assertThat(out.toString()).contains("Usage: iwarp nfs serve").contains("DIR").contains("--tcp-port")
                .contains("2049").contains("--rdma-port").contains("20049").contains("--export").contains("/export")
                .contains("--no-rdma").contains("--bind").contains("--max-io").contains("nolock");
        // access control, as knfsd's exports(5)
        assertThat(out.toString()).contains("--rw").contains("--no-root-squash").contains("--all-squash")
                .contains("--anonuid").contains("--anongid").contains("--client").contains("read-only")
                .contains("loopback");
        // NFSv4 stable client records and the grace period (RFC 8881 §8.4.2.1)
        assertThat(out.toString()).contains("--state-dir").contains("reclaim");
    }

    @ParameterizedTest
    @ValueSource(strings = {"ls", "get", "put"})
    void clientCommandsHaveTransportPortsAndExitStatuses(String command) {
        assertThat(iwarp("nfs " + command + " --help")).isZero();
        assertThat(out.toString()).contains("Usage: iwarp nfs " + command).contains("SERVER:/path")
                .contains("--transport").contains("rdma|tcp").contains("--port").contains("--rdma-port")
                .contains("--mount-port").contains("--export").contains("--uid").contains("3 no connection")
                .contains("--vers").contains("3|4.1|4.2").contains("the highest the server");
    }

    @ParameterizedTest(name = "--vers {0}")
    @CsvSource({"3, V3", "4.1, V4_1", "4.2, V4_2", "4, HIGHEST"})
    void versParses(String text, NfsVersion expected) {
        NfsLsCommand ls = new NfsLsCommand();
        new picocli.CommandLine(ls).parseArgs("server:/export", "--vers", text);
        assertThat(ls.server.version).isEqualTo(expected);
        NfsBenchCommand bench = new NfsBenchCommand();
        new picocli.CommandLine(bench).parseArgs("--vers", text);
        assertThat(bench.server.version).isEqualTo(expected);
    }

    @Test
    void versDefaultsToTheHighestTheServerOffers() {
        NfsGetCommand get = new NfsGetCommand();
        new picocli.CommandLine(get).parseArgs("server:/export/f");
        assertThat(get.server.version).isEqualTo(NfsVersion.HIGHEST);
    }

    @Test
    void benchHelpHasSizesCountDurationAndLoopback() {
        assertThat(iwarp("nfs bench --help")).isZero();
        assertThat(out.toString()).contains("Usage: iwarp nfs bench").contains("SERVER:/dir").contains("--loopback")
                .contains("-s, --file-size").contains("--rsize").contains("--wsize").contains("-n, --count")
                .contains("-D, --duration").contains("--warmup").contains("--steady-share").contains("--steady-cap").contains("-t, --in-flight").contains("--no-tcp")
                .contains("--dir").contains("CRC32C").contains("3 no connection");
    }

    @Test
    void benchDefaults() {
        NfsBenchCommand command = new NfsBenchCommand();
        new picocli.CommandLine(command).parseArgs();
        NfsBenchSettings s = command.settings();
        assertThat(s.fileSize()).isEqualTo(64L << 20);
        assertThat(s.rsize()).isEqualTo(1 << 20);
        assertThat(s.wsize()).isEqualTo(1 << 20);
        assertThat(s.passes()).isEqualTo(2);
        assertThat(s.warmupPasses()).isEqualTo(1);
        assertThat(s.steadyShare()).isEqualTo(0.02);
        assertThat(s.steadyCapSeconds()).isEqualTo(60);
        assertThat(s.inFlight()).isEqualTo(8);
        assertThat(s.transports()).containsExactly(NfsTransport.RDMA, NfsTransport.TCP);
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', value = {
            "nfs ls server/export | SERVER:/path expected",
            "nfs ls server:export | SERVER:/path expected",
            "nfs ls :/export | SERVER:/path expected",
            "nfs ls server:/export --transport udp | rdma or tcp",
            "nfs ls server:/export --port 0 | --port 0: must be 1..65535",
            "nfs ls server:/export --vers 4.0 | 3, 4.1 or 4.2: 4.0",
            "nfs bench --vers 2 | 3, 4.1 or 4.2: 2",
            "nfs ls server:/export --export export | --export export: must be an absolute path",
            "nfs get | SERVER:/path",
            "nfs put DIR/missing server:/export | not a regular file",
            "nfs serve DIR/missing | /missing: not a directory",
            "nfs serve DIR --export export | absolute path",
            "nfs serve DIR --max-io 100 | --max-io 100: must be 4K..16M",
            "nfs serve DIR --client nfs.example.org | --client nfs.example.org: an IPv4 or IPv6 address",
            "nfs serve DIR --client 10.0.0.0/33 | prefix length 0..32",
            "nfs serve DIR --anonuid -1 | --anonuid and --anongid are 0..2147483647",
            "nfs serve DIR --drc-entries -1 | --drc-entries -1: must be 0..262144",
            "nfs serve DIR --drc-entries 300000 | --drc-entries 300000: must be 0..262144",
            "nfs bench server:/export --loopback | not both",
            "nfs bench --rsize 1000 | --rsize 1000: must be 4K..16M",
            "nfs bench -n 2 -D 1 | -n or -D",
            "nfs bench -s 1x | --file-size 1x: not a size",
            "nfs bench --steady-share 0 | --steady-share 0.0: must be more than 0",
            "nfs bench --steady-cap -1 | --steady-cap -1.0: must be 0 or more",
            "nfs bench --dir DIR/missing | /missing: not a directory",
            "nfs | Missing required subcommand"})
    void usageErrorsExitWithTwo(String line, String message) {
        assertThat(iwarp(line)).isEqualTo(2);
        assertThat(err.toString()).contains(message);
    }

    @Test
    void locationsParseAsMountDoes() {
        assertThat(NfsLocation.parse("server:/export/dir/")).isEqualTo(new NfsLocation("server", "/export/dir"));
        assertThat(NfsLocation.parse("10.0.0.1://export//a")).isEqualTo(new NfsLocation("10.0.0.1", "/export/a"));
        assertThat(NfsLocation.parse("[fe80::1]:/export")).isEqualTo(new NfsLocation("fe80::1", "/export"));
        assertThat(NfsLocation.parse("[fe80::1]:/export").toString()).isEqualTo("[fe80::1]:/export");
        assertThatThrownBy(() -> NfsLocation.parse("[fe80::1]/export")).isInstanceOf(IllegalArgumentException.class);
        NfsLocation l = NfsLocation.parse("h:/export/dir/file");
        assertThat(l.below("/export")).isEqualTo("dir/file");
        assertThat(l.below("/export/")).isEqualTo("dir/file");
        assertThat(l.below("/")).isEqualTo("export/dir/file");
        assertThat(l.below("/export/dir/file")).isEmpty();
        assertThat(l.below("/exp")).as("a name prefix is not a directory").isNull();
        assertThat(MountExports.holding(l, List.of("/", "/export", "/export/dir", "/exp"))).isEqualTo("/export/dir");
        assertThat(MountExports.holding(l, List.of("/other"))).isNull();
    }

    @Test
    void sizesTakeBinarySuffixes() {
        Octets octets = new Octets();
        assertThat(octets.convert("4096")).isEqualTo(4096);
        assertThat(octets.convert("64k")).isEqualTo(64 << 10);
        assertThat(octets.convert("16M")).isEqualTo(16 << 20);
        assertThat(octets.convert("2g")).isEqualTo(2L << 30);
        assertThatThrownBy(() -> octets.convert("-1")).isInstanceOf(TypeConversionException.class);
        assertThatThrownBy(() -> octets.convert("m")).isInstanceOf(TypeConversionException.class);
    }

    @Test
    void lsModeStringsAsLs() {
        NfsTime3 t = new NfsTime3(0, 0);
        SpecData3 rdev = new SpecData3(0, 0);
        assertThat(NfsLsCommand.mode(new Fattr3(Ftype3.NF3DIR, 01755, 2, 0, 0, 0, 0, rdev, 0, 0, t, t, t)))
                .isEqualTo("drwxr-xr-t");
        assertThat(NfsLsCommand.mode(new Fattr3(Ftype3.NF3REG, 04640, 1, 0, 0, 0, 0, rdev, 0, 0, t, t, t)))
                .isEqualTo("-rwSr-----");
    }
}
