package org.iwarp4j.interop.nfs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.iwarp4j.interop.nfs.Checksums.sha256;
import static org.iwarp4j.interop.nfs.Checksums.sha256OnPeer;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.DigestOutputStream;
import java.security.MessageDigest;
import java.time.Duration;
import java.util.HexFormat;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.iwarp4j.conformance.decode.CaptureDecoder;
import org.iwarp4j.conformance.decode.DecodeOptions;
import org.iwarp4j.conformance.decode.DecodeReport;
import org.iwarp4j.conformance.decode.DecodedUnit;
import org.iwarp4j.conformance.decode.UnreadableCaptureException;
import org.iwarp4j.interop.peer.LinuxPeer;
import org.iwarp4j.interop.peer.LinuxPeerExtension;
import org.iwarp4j.mpa.MpaSettings;
import org.iwarp4j.nfs.Nfs4Client;
import org.iwarp4j.nfs.NfsClient;
import org.iwarp4j.rdmap.Rnic;
import org.iwarp4j.tools.pcap.PcapRecording;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.extension.TestExecutionExceptionHandler;
import org.junit.jupiter.api.io.TempDir;
import org.opentest4j.TestAbortedException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What the tests of our NFS clients against the peer's knfsd share, whichever NFS version: knfsd
 * started once per class, our RNIC's meters, the quarantine of a stranded first call, and a round
 * trip that puts a file, checks knfsd stored it byte for byte, gets one knfsd holds and checks it
 * the same way, with knfsd moving the data by RDMA Read and RDMA Write (RFC 8267 §4.1, §6.1).
 */
@ExtendWith(LinuxPeerExtension.class)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
abstract class KnfsdClientFixture {

    private static final Logger LOG = LoggerFactory.getLogger(KnfsdClientFixture.class);
    private static final Pattern XID = Pattern.compile("xid 0x([0-9a-f]{1,8})\\b");
    static final Duration TRANSFER_TIMEOUT = Duration.ofMinutes(10);
    static final Duration CALL_TIMEOUT = Duration.ofMinutes(2);
    /** Our MPA settings for bulk transfers with CRC off, see {@link SiwTrailerWorkaround}. */
    static final MpaSettings BULK_MPA = MpaSettings.builder().crc(SiwTrailerWorkaround.BULK_CRC).build();

    final LinuxPeer peer;
    final SimpleMeterRegistry meters = new SimpleMeterRegistry();
    KnfsdOnPeer knfsd;
    @TempDir
    Path local;
    private final boolean nfs4;

    /**
     * A case that fails (not one aborted) leaves knfsd's side in the log: the peer's last kernel
     * messages and rpcrdma trace events, and our RNIC's message counts. A call that knfsd never
     * answered is otherwise only our timeout; the trace tells a call knfsd never decoded from a
     * reply it sent that never arrived.
     */
    @RegisterExtension
    final TestExecutionExceptionHandler knfsdSideOfAFailure = (context, failure) -> {
        if (!(failure instanceof TestAbortedException) && knfsd != null) {
            try {
                List<String> xids = xidsIn(failure);
                LOG.error("{} failed: {}\n--- our RNIC's RDMAP messages ---\n{}{}{}", context.getDisplayName(),
                        failure.toString(), messages(), onTheWire(xids), knfsd.diagnostics(xids));
            } catch (RuntimeException e) {
                failure.addSuppressed(e);
            }
        }
        throw failure;
    };

    /** Our side of a case's RDMA connections ({@link #recordedRnic}), kept only if the case fails. */
    private PcapRecording recording;
    private boolean keepRecording;

    /** @param nfs4 whether knfsd serves NFSv4 too (else NFSv3 and MOUNT only) */
    KnfsdClientFixture(LinuxPeer peer, boolean nfs4) {
        this.peer = peer;
        this.nfs4 = nfs4;
    }

    @BeforeAll
    void startKnfsd() {
        knfsd = KnfsdOnPeer.start(peer, nfs4);
    }

    @AfterAll
    void stopKnfsd() throws Exception {
        if (knfsd != null) {
            try {
                beforeKnfsdStops();
            } finally {
                knfsd.close();
            }
        }
    }

    /**
     * An RNIC builder with our meters whose every connection is recorded from its first octet
     * (target/knfsd-captures/CLASS.pcap), so that a failing case can show the messages that name its
     * xids as they left us and as they reached us: what we sent, and what came back, byte for byte
     * ahead of the peer. With CRC off (the bulk MPA settings) that is the only record of octets
     * that a corruption on the way would have changed. The file is deleted after a case that passes.
     */
    Rnic.Builder recordedRnic(String name) throws IOException {
        return recordedRnic(name, ch -> { });
    }

    /** As {@link #recordedRnic(String)}, with {@code also} run on each connection's channel after it. */
    Rnic.Builder recordedRnic(String name, java.util.function.Consumer<io.netty.channel.Channel> also)
            throws IOException {
        Path dir = Path.of("target", "knfsd-captures");
        Files.createDirectories(dir);
        PcapRecording r = PcapRecording.open(dir.resolve(getClass().getSimpleName() + ".pcap"));
        recording = r;
        return Rnic.builder().name(name).meterRegistry(meters).channelInitializer(ch -> {
            r.record(ch);
            also.accept(ch);
        });
    }

    @AfterEach
    void dropRecording() throws IOException {
        PcapRecording r = recording;
        recording = null;
        if (r != null) {
            r.close();
            if (keepRecording) {
                LOG.info("our side of the failed case's connections: {}", r.file().toAbsolutePath());
            } else {
                Files.deleteIfExists(r.file());
            }
        }
        keepRecording = false;
    }

    /**
     * From the recording, decoded (as {@code iwarp decode} does): the connections, every unit whose
     * line names one of {@code xids}, and every RDMA_ERROR, Terminate and note; at most
     * {@value #WIRE_LINES} lines. Empty if the case recorded nothing.
     */
    String onTheWire(List<String> xids) {
        PcapRecording r = recording;
        if (r == null) {
            return "";
        }
        keepRecording = true;
        r.close();
        DecodeReport report;
        try {
            report = CaptureDecoder.decode(r.file(), DecodeOptions.DEFAULT);
        } catch (UnreadableCaptureException e) {
            return "--- our recording " + r.file() + " could not be decoded: " + e.getMessage() + "\n";
        }
        StringBuilder b = new StringBuilder("--- on the wire, as we recorded it (" + r.file() + "): ")
                .append(report.units().size()).append(" units ---\n");
        report.connections().forEach(c -> b.append("conn ").append(c.index()).append(": ").append(c.negotiated())
                .append('\n'));
        int lines = 0;
        for (DecodedUnit u : report.units()) {
            String line = u.summary();
            boolean named = xids.stream().anyMatch(x -> line.toLowerCase(java.util.Locale.ROOT).contains(x));
            if ((named || line.contains("RDMA_ERROR") || line.contains("Terminate")) && lines++ < WIRE_LINES) {
                b.append(String.format("%6d %3d %s %s%n", u.frame(), u.connection(), u.direction(), line));
            }
        }
        report.notes().stream().limit(WIRE_LINES).forEach(n -> b.append("   -- ").append(n).append('\n'));
        report.violations().stream().limit(WIRE_LINES).forEach(v -> b.append("   !! ").append(v).append('\n'));
        return b.toString();
    }

    private static final int WIRE_LINES = 40;

    /** Runs while knfsd still runs, after the last test (e.g. to keep its trace). */
    void beforeKnfsdStops() throws Exception {
    }

    /** The xids an exception and its causes name ("xid 0x1234abc", as {@code RpcCallInfo} prints them), 8 digits. */
    static List<String> xidsIn(Throwable failure) {
        Set<String> xids = new LinkedHashSet<>();
        for (Throwable t = failure; t != null; t = t.getCause()) {
            Matcher m = XID.matcher(String.valueOf(t.getMessage()));
            while (m.find()) {
                xids.add(String.format("0x%08x", Long.parseLong(m.group(1), 16))); // as the kernel's trace prints it
            }
        }
        return List.copyOf(xids);
    }

    /** Every count of meter iwarp.rdmap.messages, a line per direction and opcode. */
    String messages() {
        StringBuilder b = new StringBuilder();
        for (Counter c : meters.find("iwarp.rdmap.messages").counters()) {
            b.append(c.getId().getTag("direction")).append(' ').append(c.getId().getTag("opcode")).append(' ')
                    .append((long) c.count()).append('\n');
        }
        return b.toString();
    }

    /** RDMAP messages our RNIC received with this opcode (meter iwarp.rdmap.messages). */
    double received(String opcode) {
        Counter c = meters.find("iwarp.rdmap.messages").tag("direction", "rx").tag("opcode", opcode).counter();
        return c == null ? 0 : c.count();
    }

    /**
     * The abort of a case whose first call got no reply at all: quarantined (shown as aborted with
     * the reason), not retried. siw 6.1's accept race (docs/siw-interop.md, "What siw does") can
     * leave our first FPDU unread in knfsd's socket until more data comes; our wake-up Write should
     * prevent it, so a stranded call is worth seeing rather than hiding.
     */
    static TestAbortedException quarantined(Throwable noReply) {
        LOG.warn("no reply to the first call over RDMA in {}; quarantined (siw accept race)", CALL_TIMEOUT, noReply);
        return new TestAbortedException("quarantined: no reply to the first call over RDMA in " + CALL_TIMEOUT
                + " (siw 6.1's accept race)", noReply);
    }

    /** Uploads a stream to a path on the server (an NFS client's {@code upload}). */
    @FunctionalInterface
    interface Upload {
        long upload(InputStream in, String path) throws IOException;
    }

    /** Downloads a path on the server into a stream (an NFS client's {@code download}). */
    @FunctionalInterface
    interface Download {
        long download(String path, OutputStream out) throws IOException;
    }

    /** What a round trip needs of one of our clients, whichever its NFS version. */
    record OurClient(Upload upload, Download download, int readSize, int writeSize) {

        static OurClient of(NfsClient nfs) {
            return new OurClient(nfs::upload, nfs::download, nfs.readSize(), nfs.writeSize());
        }

        static OurClient of(Nfs4Client nfs) {
            return new OurClient(nfs::upload, nfs::download, nfs.readSize(), nfs.writeSize());
        }
    }

    /** How long the put and the get took. */
    record RoundTrip(long putMillis, long getMillis) {
    }

    /**
     * Puts {@code putSize} random octets as put.bin and checks knfsd's SHA-256 of what it stored,
     * then gets get.bin of {@code getSize} random octets written on the peer and checks ours
     * against knfsd's; knfsd must have pulled the WRITE data from our Read chunks (RDMA Read
     * Requests) and pushed the READ data into our Write chunks (RDMA Writes), a message at least
     * per WRITE and per READ.
     */
    RoundTrip putAndGet(OurClient nfs, long putSize, long getSize) throws Exception {
        Path put = local.resolve("put.bin");
        Checksums.writeRandom(put, putSize, putSize);
        long t0 = System.nanoTime();
        try (InputStream in = Files.newInputStream(put)) {
            assertThat(nfs.upload().upload(in, "put.bin")).isEqualTo(putSize);
        }
        long putMillis = (System.nanoTime() - t0) / 1_000_000;
        assertThat(sha256OnPeer(peer, knfsd.onPeer("put.bin"), TRANSFER_TIMEOUT)).as("what knfsd stored")
                .isEqualTo(sha256(put));
        assertThat(received("rdma_read_request")).as("knfsd pulled WRITE data from our Read chunks")
                .isGreaterThanOrEqualTo(putSize / nfs.writeSize());

        Checksums.writeRandomOnPeer(peer, knfsd.onPeer("get.bin"), getSize, TRANSFER_TIMEOUT);
        String peerSum = sha256OnPeer(peer, knfsd.onPeer("get.bin"), TRANSFER_TIMEOUT);
        MessageDigest digest = MessageDigest.getInstance("SHA-256");
        long t1 = System.nanoTime();
        try (OutputStream out = new DigestOutputStream(OutputStream.nullOutputStream(), digest)) {
            assertThat(nfs.download().download("get.bin", out)).isEqualTo(getSize);
        }
        long getMillis = (System.nanoTime() - t1) / 1_000_000;
        assertThat(HexFormat.of().formatHex(digest.digest())).as("what we got").isEqualTo(peerSum);
        assertThat(received("rdma_write")).as("knfsd pushed READ data into our Write chunks")
                .isGreaterThanOrEqualTo(getSize / nfs.readSize());
        return new RoundTrip(putMillis, getMillis);
    }
}
