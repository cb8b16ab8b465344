package org.iwarp4j.interop.nfs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.iwarp4j.interop.nfs.Checksums.sha256;
import static org.iwarp4j.interop.nfs.Checksums.sha256OnPeer;

import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.time.Duration;
import org.iwarp4j.interop.peer.BackgroundCommand;
import org.iwarp4j.interop.peer.GuestCapture;
import org.iwarp4j.interop.peer.LinuxPeer;
import org.iwarp4j.interop.peer.LinuxPeerExtension;
import org.iwarp4j.mpa.NegotiationMode;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The peer's Linux kernel NFS client mounts our {@link org.iwarp4j.nfs.NfsServer} with NFSv4.1
 * and 4.2 (RFC 8881, RFC 7862): {@code mount -t nfs -o proto=rdma,port=P host:/ dir} with no
 * version gets 4.2; {@code vers=4.1} gets 4.1; {@code proto=tcp} works the same. One mount per
 * test carries several checks: data written and read back with the same SHA-256 on both sides
 * (WRITE data pulled from Read chunks, READ data pushed into Write chunks, RFC 8267 §6.1), the
 * namespace operations of a shell (mkdir, mv, rm, ls -l, ln -s, ln), whole-file ({@code flock}) and
 * byte-range ({@code fcntl} F_SETLK) locks from two processes, the back channel (CB_NULL and
 * CB_SEQUENCE answered by Linux over RDMA, seen in a capture of the connection, and over TCP),
 * and a remount that finds everything still there.
 */
@ExtendWith(LinuxPeerExtension.class)
class LinuxClientMountsOurNfs4ServerTest {

    private static final Logger LOG = LoggerFactory.getLogger(LinuxClientMountsOurNfs4ServerTest.class);
    private static final Duration TRANSFER_TIMEOUT = Duration.ofMinutes(10);
    private static final Path CAPTURES = Path.of("target", "captures");
    /**
     * Takes an fcntl(2) byte-range lock with F_SETLK (never waits): prints granted or refused; with
     * two more arguments, touches the first once granted and holds the lock until the second exists
     * (at most 30 s). The guest has perl's interpreter but neither its modules (no Fcntl.pm) nor
     * python3, so the constants are x86-64 Linux's (F_SETLK 6, F_RDLCK 0, F_WRLCK 1), as is struct flock.
     */
    private static final String LOCK_SCRIPT = """
            my ($file, $type, $start, $len, $held, $release) = @ARGV;
            open(my $fh, '+<', $file) or die "open $file: $!\\n";
            my $lock = pack('s s x4 q q i x4', $type eq 'w' ? 1 : 0, 0, $start, $len, 0);
            if (!fcntl($fh, 6, $lock)) { print "refused\\n"; exit 1; }
            print "granted\\n";
            if (defined $held) {
                open(my $m, '>', $held) and close($m);
                for (1 .. 300) { last if -e $release; select(undef, undef, undef, 0.1); }
            }
            """;

    private final LinuxPeer peer;
    @TempDir
    Path export;
    private String peerScratch;

    LinuxClientMountsOurNfs4ServerTest(LinuxPeer peer) {
        this.peer = peer;
    }

    @AfterEach
    void removeScratch() {
        if (peerScratch != null) {
            peer.exec("rm -rf " + peerScratch);
        }
    }

    private String peerScratch() {
        if (peerScratch == null) {
            peerScratch = peer.exec("mktemp -d /tmp/iwarp4j-nfs4-local.XXXXXX").requireSuccess().stdout().strip();
        }
        return peerScratch;
    }

    /** No version option over RDMA: 4.2; 64 MiB each way, names, links, locks, remount. */
    @Test
    void mountWithoutVersionGetsFourPointTwoOverRdma() throws Exception {
        try (OurServerMountedByLinux mount = OurServerMountedByLinux.mount(peer, export, false,
                SiwTrailerWorkaround.BULK_CRC, "nfsv4", "/", server -> "proto=rdma,port=" + server.rdmaPort())) {
            assertThat(mount.procMountsLine()).contains("vers=4.2").contains("proto=rdma");
            writeAndReadBack(mount, 64 << 20, true);
            assertThat(callbacksAnswered(mount, 2)).as("CB_NULL and CB_SEQUENCE answered by Linux over the "
                    + "RPC-over-RDMA backward direction (ULB-R-027)").isGreaterThanOrEqualTo(2);
            namespace(mount);
            largeDirectory(mount);
            locks(mount);
            remountKeepsEverything(mount);
            assertThat(mount.terminates()).as("Terminate messages; the peer's dmesg:\n%s", mount.dmesg()).isEmpty();
        }
    }

    /**
     * vers=4.1 over RDMA, the connection recorded on our side: the capture shows our CB_NULL and
     * CB_COMPOUND Calls in the backward direction (RFC 8167) and Linux's Replies to each.
     */
    @Test
    void mountWithVersionFourPointOneOverRdma() throws Exception {
        OurServerMountedByLinux recorded;
        try (OurServerMountedByLinux mount = OurServerMountedByLinux.mount(peer, export, true,
                SiwTrailerWorkaround.BULK_CRC, "nfsv4", "/", server -> "vers=4.1,proto=rdma,port=" + server.rdmaPort())) {
            recorded = mount;
            assertThat(mount.procMountsLine()).contains("vers=4.1").contains("proto=rdma");
            assertThat(callbacksAnswered(mount, 2)).as("CB_NULL and CB_SEQUENCE answered").isGreaterThanOrEqualTo(2);
            writeAndReadBack(mount, 4 << 20, true);
            namespace(mount);
            locks(mount);
            byteRangeLocks(mount);
        }
        BackchannelOnWire.assertBothDirections(recorded.writeCapture(CAPTURES, "linux-nfs41-backchannel"));
    }

    /**
     * No version option over TCP: 4.2 on the same server. The guest records its side of the mount
     * with tcpdump until the callbacks are answered: our CB_NULL and CB_COMPOUND arrive on Linux's
     * own connection and its replies go back on it.
     */
    @Test
    void mountOverTcpGetsFourPointTwo() throws Exception {
        String pcap = peerScratch() + "/tcp-backchannel.pcap";
        // --immediate-mode: each packet reaches the file at once, not a buffer block up to a second late
        BackgroundCommand dump = peer.start("timeout 300 tcpdump -i any -n -s 0 -U --immediate-mode -c 2000 -w " + pcap
                + " 'tcp and host " + peer.hostAddressSeenByPeer().getHostAddress() + " and not port 22'");
        try (dump; OurServerMountedByLinux mount = OurServerMountedByLinux.mount(peer, export, false,
                NegotiationMode.REQUIRE, "nfsv4", "/", server -> {
                    dump.awaitLine("listening on", Duration.ofSeconds(60));
                    return "proto=tcp,port=" + server.tcpPort();
                })) {
            assertThat(mount.procMountsLine()).contains("vers=4.2").contains("proto=tcp");
            assertThat(callbacksAnswered(mount, 2)).as("CB_NULL and CB_SEQUENCE answered by Linux on its own TCP "
                    + "connection (RFC 8881 §2.10.3.1)").isGreaterThanOrEqualTo(2);
            int port = mount.server().tcpPort();
            byte[] capture = GuestCapture.readOnceItHolds(peer, pcap,
                    bytes -> TcpBackchannelOnWire.holdsBothDirections(bytes, port), Duration.ofSeconds(60));
            dump.kill();
            TcpBackchannelOnWire.assertBothDirections(new java.io.ByteArrayInputStream(capture), port);
            writeAndReadBack(mount, 4 << 20, false);
            namespace(mount);
            locks(mount);
            byteRangeLocks(mount);
        }
    }

    /** The callbacks Linux answered, once {@code expected} are or after 30 s. */
    private static long callbacksAnswered(OurServerMountedByLinux mount, long expected) throws InterruptedException {
        mount.server().awaitNfs4CallbacksAnswered(expected, Duration.ofSeconds(30));
        return mount.server().nfs4CallbacksAnswered();
    }

    private void writeAndReadBack(OurServerMountedByLinux mount, int size, boolean rdma) throws Exception {
        String fromPeer = peerScratch() + "/from-peer.bin";
        Checksums.writeRandomOnPeer(peer, fromPeer, size, TRANSFER_TIMEOUT);
        String peerSum = sha256OnPeer(peer, fromPeer, TRANSFER_TIMEOUT);
        Path fromHost = export.resolve("from-host.bin");
        Checksums.writeRandom(fromHost, size + 777, size);
        String hostSum = sha256(fromHost);

        long t0 = System.nanoTime();
        peer.exec("dd if=" + fromPeer + " of=" + mount.onPeer("from-peer.bin") + " bs=1M conv=fsync status=none",
                TRANSFER_TIMEOUT).requireSuccess();
        long writeMillis = (System.nanoTime() - t0) / 1_000_000;
        assertThat(sha256(export.resolve("from-peer.bin"))).as("what our server stored").isEqualTo(peerSum);
        double pulls = mount.sent("rdma_read_request");
        mount.dropPeerCaches();
        double pushesBefore = mount.sent("rdma_write");
        long t1 = System.nanoTime();
        assertThat(sha256OnPeer(peer, mount.onPeer("from-peer.bin"), TRANSFER_TIMEOUT)).isEqualTo(peerSum);
        assertThat(sha256OnPeer(peer, mount.onPeer("from-host.bin"), TRANSFER_TIMEOUT)).isEqualTo(hostSum);
        long readMillis = (System.nanoTime() - t1) / 1_000_000;
        if (rdma) {
            int wsize = mount.mountOption("wsize");
            int rsize = mount.mountOption("rsize");
            assertThat(pulls).as("WRITE data pulled from Read chunks").isGreaterThanOrEqualTo(size / wsize);
            assertThat(mount.sent("rdma_write") - pushesBefore).as("READ data pushed into Write chunks")
                    .isGreaterThanOrEqualTo(2.0 * (size / rsize));
        }
        LOG.info("NFSv4 {}: {} octets written in {} ms, twice as many read in {} ms", mount.options(), size,
                writeMillis, readMillis);
    }

    /** mkdir, mv, rm, ls -l, ln -s, ln as a shell does them; this side sees each effect. */
    private void namespace(OurServerMountedByLinux mount) throws Exception {
        String m = mount.mountPoint();
        peer.exec("cd " + m + " && mkdir d && printf abc > d/f && mv d/f d/g && ln -s g d/s && ln d/g d/h"
                + " && chmod 640 d/g").requireSuccess();
        assertThat(export.resolve("d/g")).hasContent("abc");
        assertThat(Files.isSymbolicLink(export.resolve("d/s"))).isTrue();
        assertThat(Files.readSymbolicLink(export.resolve("d/s")).toString()).isEqualTo("g");
        assertThat(Files.getAttribute(export.resolve("d/h"), "unix:ino"))
                .isEqualTo(Files.getAttribute(export.resolve("d/g"), "unix:ino"));
        String ls = peer.exec("ls -ln " + m + "/d").requireSuccess().stdout();
        LOG.info("ls -ln on the NFSv4 mount:\n{}", ls);
        assertThat(ls).containsPattern("-rw-r-----\\s+2\\s+\\d+\\s+\\d+\\s+3 .* g\\n")
                .containsPattern("l[rwx-]{9}\\s+1 .* s -> g\\n");
        assertThat(peer.exec("cat " + m + "/d/s").requireSuccess().stdout().strip()).isEqualTo("abc");
        assertThat(peer.exec("readlink " + m + "/d/s").requireSuccess().stdout().strip()).isEqualTo("g");
        assertThat(peer.exec("rmdir " + m + "/d 2>&1").exitCode()).as("rmdir of a full directory").isNotZero();
        peer.exec("rm " + m + "/d/s " + m + "/d/h " + m + "/d/g && rmdir " + m + "/d").requireSuccess();
        assertThat(export.resolve("d")).doesNotExist();
        assertThat(Files.exists(export.resolve("d"), LinkOption.NOFOLLOW_LINKS)).isFalse();
    }

    /**
     * A directory whose listing is far larger than the 4 KiB inline threshold: Linux asks for it
     * with READDIRs whose replies need a Reply chunk (RFC 8267 §6.2); every name arrives once.
     */
    private void largeDirectory(OurServerMountedByLinux mount) throws Exception {
        Path big = Files.createDirectory(export.resolve("big"));
        for (int i = 0; i < 400; i++) {
            Files.writeString(big.resolve("a-rather-long-file-name-to-fill-readdir-replies-" + i), "x");
        }
        String listed = peer.exec("ls -1 " + mount.onPeer("big") + " | sort | uniq | wc -l").requireSuccess().stdout();
        assertThat(Integer.parseInt(listed.strip())).isEqualTo(400);
        peer.exec("rm -r " + mount.onPeer("big")).requireSuccess();
        assertThat(big).doesNotExist();
    }

    /**
     * Two processes on the peer: while one holds an exclusive lock (flock(2), which the Linux NFS
     * client sends as a whole-file LOCK), the other's non-blocking attempt fails; once released,
     * it succeeds; two shared locks coexist. The peer waits for a marker file, not for time.
     */
    private void locks(OurServerMountedByLinux mount) {
        String f = mount.onPeer("lockfile");
        String held = peerScratch() + "/held";
        String shared = peerScratch() + "/shared";
        String release = peerScratch() + "/release";
        // the holders wait for a marker file (at most 30 s), and the checks wait for theirs
        String waitFor = "for i in $(seq 300); do [ -e %s ] && break; sleep 0.1; done";
        String out = peer.exec("touch " + f + " && rm -f " + held + " " + shared + " " + release
                + " && ( flock -x " + f + " -c 'touch " + held + "; " + waitFor.formatted(release) + "' & )"
                + " && " + waitFor.formatted(held)
                + " && flock -n -x " + f + " -c true; echo exclusive-while-held=$?"
                + "; touch " + release + "; flock -x -w 30 " + f + " -c true; echo exclusive-after=$?"
                + "; rm -f " + release + "; ( flock -s " + f + " -c 'touch " + shared + "; " + waitFor.formatted(release)
                + "' & ) ; " + waitFor.formatted(shared) + "; flock -n -s " + f + " -c true; echo shared=$?"
                + "; flock -n -x " + f + " -c true; echo exclusive-while-shared=$?; touch " + release,
                Duration.ofMinutes(2)).stdout();
        LOG.info("locks on the NFSv4 mount:\n{}", out);
        assertThat(out).contains("exclusive-while-held=1").contains("exclusive-after=0").contains("shared=0")
                .contains("exclusive-while-shared=1");
    }

    /**
     * Byte-range locks (fcntl F_SETLK, sent as NFSv4 LOCK with offset and length) from two processes
     * of the peer: while one holds a write lock on octets 0-99, the other is refused an overlapping
     * write lock (50-59) and an overlapping read lock (99-103) and granted a disjoint one (200-209);
     * once the holder is gone, the overlapping range is granted. The script is written to the peer.
     */
    private void byteRangeLocks(OurServerMountedByLinux mount) {
        String f = mount.onPeer("rangefile");
        String script = peerScratch() + "/lockrange.pl";
        String held = peerScratch() + "/range-held";
        String release = peerScratch() + "/range-release";
        String perl = "$(ls /usr/bin/perl5.* /usr/bin/perl 2>/dev/null | head -1)";
        String lock = perl + " " + script + " " + f + " ";
        String waitFor = "for i in $(seq 300); do [ -e %s ] && break; sleep 0.1; done";
        peer.exec("cat > " + script + " <<'EOF'\n" + LOCK_SCRIPT + "EOF").requireSuccess();
        String out = peer.exec("printf '%0300d' 0 > " + f + " && rm -f " + held + " " + release
                + " && ( " + lock + "w 0 100 " + held + " " + release + " >/dev/null 2>&1 & )"
                + " && " + waitFor.formatted(held) + "; [ -e " + held + " ] || { echo holder-not-granted; exit 1; }"
                + "; " + lock + "w 50 10; echo overlapping-write=$?"
                + "; " + lock + "r 99 5; echo overlapping-read=$?"
                + "; " + lock + "w 200 10; echo disjoint-write=$?"
                + "; touch " + release + "; r=1; for i in $(seq 300); do if " + lock + "w 50 10 >/dev/null; then r=0;"
                + " break; fi; sleep 0.1; done; echo overlapping-after-release=$r", Duration.ofMinutes(2)).stdout();
        LOG.info("byte-range locks on the NFSv4 mount:\n{}", out);
        assertThat(out).contains("overlapping-write=1").contains("overlapping-read=1").contains("disjoint-write=0")
                .contains("overlapping-after-release=0");
    }

    private void remountKeepsEverything(OurServerMountedByLinux mount) throws Exception {
        String sum = sha256(export.resolve("from-peer.bin"));
        mount.remount();
        assertThat(sha256OnPeer(peer, mount.onPeer("from-peer.bin"), TRANSFER_TIMEOUT)).isEqualTo(sum);
        assertThat(peer.exec("ls " + mount.mountPoint()).requireSuccess().stdout()).contains("from-peer.bin",
                "from-host.bin", "lockfile");
    }
}
