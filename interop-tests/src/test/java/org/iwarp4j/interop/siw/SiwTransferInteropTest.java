package org.iwarp4j.interop.siw;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.iwarp4j.interop.peer.BackgroundCommand;
import org.iwarp4j.interop.peer.ExecResult;
import org.iwarp4j.interop.peer.LinuxPeer;
import org.iwarp4j.mpa.MpaError;
import org.iwarp4j.mpa.MpaException;
import org.iwarp4j.mpa.MpaSettings;
import org.iwarp4j.rdmap.Listener;
import org.iwarp4j.rdmap.QueuePair;
import org.iwarp4j.rdmap.Rnic;
import org.iwarp4j.testkit.TcpConnection;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.opentest4j.TestAbortedException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Issue 4, case 3: RDMA Write, RDMA Read and Send of 1 octet, 4 KiB and 1 MiB between our
 * stack and iwarp_peer (siw-tools/iwarp_peer.c, librdmacm + libibverbs) on siw, both ways, every
 * octet verified by whoever receives it ({@link TransferPattern}; a Write's target also checks
 * the 64 octets after the data stay zero), with CRC off and on. RDMAP-R-001 (the three
 * operations), DDP tagged placement (RFC 5041 §5.2) and untagged delivery into a posted receive
 * (§5.3), segmentation of 1 MiB messages into MSS-sized FPDUs both ways.
 *
 * <p>"we act": our end connects to {@code iwarp_peer -s -r target} and performs the transfers on
 * siw's memory; "siw acts": {@code iwarp_peer -c -r actor} connects to our listener and performs
 * them on ours.
 */
class SiwTransferInteropTest extends SiwInteropTest {

    private static final Logger LOG = LoggerFactory.getLogger(SiwTransferInteropTest.class);
    static final Duration TIMEOUT = Duration.ofSeconds(90);
    static final List<Integer> SIZES = List.of(1, 4096, 1 << 20);
    static final List<Rendezvous.Op> OPS = List.of(Rendezvous.Op.WRITE, Rendezvous.Op.READ, Rendezvous.Op.SEND);

    SiwTransferInteropTest(LinuxPeer peer) {
        super(peer);
    }

    static Stream<Arguments> crcModes() {
        return Stream.of(CrcMode.values()).map(Arguments::of);
    }

    @ParameterizedTest(name = "we act, CRC {0}")
    @MethodSource("crcModes")
    void weWriteReadAndSendToSiw(CrcMode crc) throws Exception {
        crc.applyTo(peer);
        List<TransferResult> ours;
        ExecResult siw;
        try (TransferEnd end = new TransferEnd(Rnic.builder(), mpa(crc), maxSize(), true, TIMEOUT)) {
            Transfers run = weAct(peer, end, OPS, SIZES);
            ours = run.ours();
            siw = run.siw();
            assertThat(end.queuePair().negotiated().crc()).isEqualTo(crc.negotiated());
        }
        assertVerified(ours, siw);
    }

    @ParameterizedTest(name = "siw acts, CRC {0}")
    @MethodSource("crcModes")
    void siwWritesReadsAndSendsToUs(CrcMode crc) throws Exception {
        crc.applyTo(peer);
        Transfers run = null;
        AssertionError failure = null;
        Throwable ourCause;
        long writeBase;
        // Recorded before our decoder, so that a CRC error we report on siw's octets says whose it is.
        Recording recording = Recording.open(SiwCaptureInteropTest.PCAPS, "siw-acts-" + crc);
        try (recording; TransferEnd end = new TransferEnd(recording.rnic(), mpa(crc), maxSize(), true, TIMEOUT)) {
            try {
                run = siwActs(peer, end, OPS, SIZES);
            } catch (AssertionError e) {
                failure = e;
            }
            ourCause = end.queuePair().failureCause();
            writeBase = end.writeBase();
            if (failure == null) {
                assertThat(end.queuePair().negotiated().crc()).isEqualTo(crc.negotiated());
            }
        }
        if (failure != null) {
            throw quarantineIfSiwsCrc(failure, ourCause, recording, writeBase);
        }
        assertVerified(run.ours(), run.siw());
        if (crc.negotiated()) {
            // The check the quarantine rests on, on every good run: siw's whole stream, every CRC good.
            WireCrcCheck.Audit audit = WireCrcCheck.audit(onlyConnection(recording).clientToServer().stream(),
                    writeBase, SIZES);
            assertThat(audit.firstBad()).as(recording.file().toString()).isEmpty();
            assertThat(audit.unchecked()).as(recording.file().toString()).isZero();
            assertThat(audit.goodFpdus()).as(recording.file().toString()).isGreaterThan(2 * (1 << 20) / 65536);
        }
    }

    /**
     * {@code failure} as it is, unless our end failed on an MPA CRC error: then the recording decides.
     * If an FPDU from siw has a CRC that does not match its octets as they reached us, siw sent it so
     * (seen once in a full CI run, 2026-11-27: a 1 MiB Write, CRC on): the case is quarantined,
     * reported as aborted with that FPDU, and not run again. If every recorded CRC is good, our
     * decoder was wrong, and the case fails saying so.
     */
    private static AssertionError quarantineIfSiwsCrc(AssertionError failure, Throwable ourCause,
            Recording recording, long writeBase) throws IOException {
        if (!isCrcError(ourCause)) {
            return failure;
        }
        byte[] fromSiw = onlyConnection(recording).clientToServer().stream();
        Optional<WireCrcCheck.BadFpdu> bad = WireCrcCheck.audit(fromSiw, writeBase, SIZES).firstBad();
        if (bad.isEmpty()) {
            return new AssertionError("our decoder reported a CRC error, but every FPDU siw sent has a good CRC in "
                    + recording.file() + ": the fault is ours\n" + failure.getMessage(), failure);
        }
        LOG.warn("siw acts: siw sent {} (recorded in {}); quarantined", bad.get(), recording.file());
        throw new TestAbortedException("quarantined: siw sent an FPDU whose CRC does not match its octets as they "
                + "reached us, " + bad.get() + " (recorded in " + recording.file() + ")\n" + failure.getMessage(),
                failure);
    }

    private static TcpConnection onlyConnection(Recording recording) throws IOException {
        List<TcpConnection> connections = recording.connections();
        assertThat(connections).as(recording.file().toString()).hasSize(1);
        return connections.get(0);
    }

    private static boolean isCrcError(Throwable cause) {
        for (Throwable t = cause; t != null; t = t.getCause()) {
            if (t instanceof MpaException mpa && mpa.error() == MpaError.CRC_ERROR) {
                return true;
            }
        }
        return false;
    }

    @Test
    void siwIgnoresOurWakeUpWrite() throws Exception {
        // Our wake-up Write (QueuePairSettings.Builder#wakeUpWriteAfter, the remedy for siw's accept
        // race) armed to go out right behind our first FPDU, before siw can answer: a zero-length
        // RDMA Write with STag 1 (RFC 5041 §5.2: not checked; RFC 5040 §5.1: not delivered). siw
        // must take it without a Terminate, and every transfer after it must still verify.
        CrcMode crc = CrcMode.OFF;
        crc.applyTo(peer);
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        List<TransferResult> ours;
        ExecResult siw;
        try (TransferEnd end = new TransferEnd(Rnic.builder().meterRegistry(registry), mpa(crc), maxSize(), true,
                TIMEOUT, settings -> settings.wakeUpWriteAfter(Duration.ofNanos(1)))) {
            Transfers run = weAct(peer, end, OPS, SIZES);
            ours = run.ours();
            siw = run.siw();
        }
        assertThat(registry.find("iwarp.rdmap.terminates").counters()).as(siw.toString()).isEmpty();
        assertVerified(ours, siw);
        double sent = registry.get("iwarp.rdmap.wake.up.writes").counter().count();
        assertThat(sent).as(siw.toString()).isLessThanOrEqualTo(1.0);
        // The 1 ns timer runs in the event loop's task phase; if the loop thread was descheduled
        // until siw's first reply was readable too, the loop reads that reply first and the reply
        // cancels the Write (as it should: siw has spoken). Seen once on a loaded machine. Then
        // this run proved nothing about siw and the wake-up Write, so it is reported as aborted,
        // not passed: a skip in the report is the signal, and nothing is retried.
        assumeTrue(sent == 1.0, "the wake-up Write lost the race with siw's first reply; nothing was tested");
    }

    /** Both ends saw every transfer, in order, verified, and iwarp_peer ended well. */
    private static void assertVerified(List<TransferResult> ours, ExecResult siw) {
        List<String> expected = new ArrayList<>();
        for (Rendezvous.Op op : OPS) {
            for (int size : SIZES) {
                expected.add("result op=" + op.option() + " size=" + size + " status=ok by="
                        + (op == Rendezvous.Op.READ ? "actor" : "target"));
            }
        }
        assertThat(ours).map(TransferResult::toString).as(siw.toString()).containsExactlyElementsOf(expected);
        assertThat(IwarpPeerProgram.results(siw.stdout())).map(TransferResult::toString).as(siw.toString())
                .containsExactlyElementsOf(expected);
        assertThat(siw.exitCode()).as(siw.toString()).isZero();
    }

    static MpaSettings mpa(CrcMode crc) {
        return MpaSettings.builder().crc(crc.ours()).build();
    }

    static int maxSize() {
        return SIZES.stream().mapToInt(Integer::intValue).max().orElseThrow();
    }

    /** What each end reported of one run. */
    record Transfers(List<TransferResult> ours, ExecResult siw) {
    }

    /**
     * Our end connects to iwarp_peer serving as target and performs {@code ops} × {@code sizes}.
     *
     * <p>It sends its first message only once iwarp_peer has seen RDMA_CM_EVENT_ESTABLISHED. siw
     * (Linux 6.1, siw_accept) sends its MPA Reply before it hands the socket to the queue pair's
     * receive path (siw_qp_socket_assoc); an FPDU arriving in between stays unread in the socket
     * until more data arrives, and a request-response exchange then waits for ever. Behind QEMU's
     * TCG this window is wide: 6 of 20 such connections hung with the 48-octet REQ in siw's
     * Recv-Q; 0 of 20 after waiting for siw's ESTABLISHED, which comes after the hand-over.
     */
    static Transfers weAct(LinuxPeer peer, TransferEnd end, List<Rendezvous.Op> ops, List<Integer> sizes)
            throws Exception {
        int port = GuestPorts.next();
        IwarpPeerProgram program = IwarpPeerProgram.on(peer);
        GuestLog log = GuestLog.mark(peer);
        try (BackgroundCommand siw = peer.start("exec " + program.command("-s", "-a",
                peer.peerAddress().getHostAddress(), "-p", Integer.toString(port), "-r", "target",
                "-S", join(sizes), "-t", Long.toString(TIMEOUT.toSeconds())))) {
            try {
                siw.awaitLine("^listening ", TIMEOUT);
                QueuePair qp = end.queuePair();
                qp.connect(peer.forwardedPort(port)).get(TIMEOUT.toSeconds(), TimeUnit.SECONDS);
                siw.awaitLine("^connected$", TIMEOUT);
                List<TransferResult> ours = end.act(ops, sizes);
                qp.close().get(TIMEOUT.toSeconds(), TimeUnit.SECONDS);
                return new Transfers(ours, siw.waitFor(TIMEOUT));
            } catch (Exception | AssertionError e) {
                throw failure(e, end, siw, log);
            }
        }
    }

    /** iwarp_peer connects to our listener as actor and performs {@code ops} × {@code sizes} on our memory. */
    static Transfers siwActs(LinuxPeer peer, TransferEnd end, List<Rendezvous.Op> ops, List<Integer> sizes)
            throws Exception {
        IwarpPeerProgram program = IwarpPeerProgram.on(peer);
        GuestLog log = GuestLog.mark(peer);
        CompletableFuture<QueuePair> accepted = new CompletableFuture<>();
        try (Listener listener = end.rnic().listen(new InetSocketAddress(peer.hostBindAddress(), 0),
                end.queuePair().settings().mpa(), request -> {
                    accepted.complete(end.queuePair());
                    return request.accept(end.queuePair());
                });
             BackgroundCommand siw = peer.start("exec " + program.command("-c", "-a",
                     peer.hostAddressSeenByPeer().getHostAddress(), "-b", peer.peerAddress().getHostAddress(),
                     "-p", Integer.toString(((InetSocketAddress) listener.localAddress()).getPort()), "-r", "actor",
                     "-o", String.join(",", ops.stream().map(Rendezvous.Op::option).toList()), "-S", join(sizes),
                     "-t", Long.toString(TIMEOUT.toSeconds())))) {
            try {
                QueuePair qp = accepted.get(TIMEOUT.toSeconds(), TimeUnit.SECONDS);
                qp.established().get(TIMEOUT.toSeconds(), TimeUnit.SECONDS);
                List<TransferResult> ours = end.serve();
                // The actor disconnects after BYE; our end sees its close.
                qp.closeFuture().get(TIMEOUT.toSeconds(), TimeUnit.SECONDS);
                return new Transfers(ours, siw.waitFor(TIMEOUT));
            } catch (Exception | AssertionError e) {
                throw failure(e, end, siw, log);
            }
        }
    }

    /** {@code e} with what both ends knew: our queue pair, iwarp_peer's output, siw's kernel log. */
    static AssertionError failure(Throwable e, TransferEnd end, BackgroundCommand siw, GuestLog log) {
        QueuePair qp = end.queuePair();
        return new AssertionError(e + "\nour queue pair: " + qp.state() + ", Terminate " + qp.terminateReason()
                + ", cause " + qp.failureCause() + ", negotiated " + qp.negotiated() + "\niwarp_peer: " + siw.kill()
                + "\n" + log.diagnosis(), e);
    }

    private static String join(List<Integer> sizes) {
        return String.join(",", sizes.stream().map(String::valueOf).toList());
    }
}
