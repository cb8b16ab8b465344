package org.iwarp4j.interop.siw;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.iwarp4j.interop.peer.BackgroundCommand;
import org.iwarp4j.interop.peer.ExecResult;
import org.iwarp4j.interop.peer.LinuxPeer;
import org.iwarp4j.mpa.MpaSettings;
import org.iwarp4j.rdmap.Listener;
import org.iwarp4j.rdmap.QueuePair;
import org.iwarp4j.rdmap.Rnic;
import org.iwarp4j.rdmap.SendWorkRequest;
import org.iwarp4j.rdmap.TerminateReason;
import org.iwarp4j.rdmap.WorkCompletion;
import org.iwarp4j.rdmap.WorkCompletionStatus;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Issue 4, case 5: protection errors across the two stacks, with CRC off and on.
 * <ul>
 * <li>We RDMA Write to an STag siw never granted: siw answers with a Terminate (DDP tagged
 *     buffer error, Invalid STag: RFC 5041 §7.2 0x1/0x1/0x00) and closes; our completions carry
 *     the decoded reason (RDMAP-R-035: everything outstanding completes in error).</li>
 * <li>A Linux program writes one octet past the region we advertised: we Terminate with DDP
 *     0x1/0x1/0x01 Base or Bounds violation (RFC 5041 §7.2, RDMAP-R-009) and close; siw decodes
 *     it (its kernel log says so) and its application's work completes in error.</li>
 * </ul>
 */
class SiwTerminateInteropTest extends SiwInteropTest {

    private static final Logger LOG = LoggerFactory.getLogger(SiwTerminateInteropTest.class);
    static final Duration TIMEOUT = Duration.ofSeconds(60);
    /**
     * The Linux program's own wait for each completion: shorter than ours, so that a completion siw
     * never delivers ends the program with its output and exit 4 instead of outlasting our wait.
     */
    static final Duration PROGRAM_TIMEOUT = Duration.ofSeconds(30);
    /** iwarp_peer's exit status when a completion did not come within its timeout. */
    static final int EXIT_TIMEOUT = 4;
    /** STag index 0: siw allocates indexes from 1 (xa_alloc_cyclic with XA_LIMIT(1, 0xffffff)). */
    static final int NEVER_GRANTED = 0x0000002a;
    static final int SIZE = 4096;

    SiwTerminateInteropTest(LinuxPeer peer) {
        super(peer);
    }

    @ParameterizedTest(name = "CRC {0}")
    @EnumSource(CrcMode.class)
    void ourWriteToAnStagSiwNeverGrantedIsTerminated(CrcMode crc) throws Exception {
        crc.applyTo(peer);
        int port = GuestPorts.next();
        IwarpPeerProgram program = IwarpPeerProgram.on(peer);
        try (BackgroundCommand siw = peer.start("exec " + program.command("-s", "-a", peer.peerAddress().getHostAddress(),
                "-p", Integer.toString(port), "-r", "target", "-S", Integer.toString(SIZE), "-t", "60"));
             TransferEnd end = new TransferEnd(Rnic.builder(), mpa(crc), SIZE, true, TIMEOUT)) {
            siw.awaitLine("^listening ", TIMEOUT);
            QueuePair qp = end.queuePair();
            qp.connect(peer.forwardedPort(port)).get(TIMEOUT.toSeconds(), TimeUnit.SECONDS);
            siw.awaitLine("^connected$", TIMEOUT);  // siw's accept race: see SiwTransferInteropTest.weAct

            qp.postSend(SendWorkRequest.rdmaWrite(1, NEVER_GRANTED, 0, end.data(SIZE)));
            WorkCompletion write = end.poll(true);
            qp.closeFuture().get(TIMEOUT.toSeconds(), TimeUnit.SECONDS);
            List<WorkCompletion> receives = new ArrayList<>();
            for (WorkCompletion c; receives.size() < TransferEnd.RECEIVES && (c = end.poll(false)) != null; ) {
                receives.add(c);
            }
            ExecResult siwEnd = siw.waitFor(TIMEOUT);

            assertThat(qp.terminateReason()).as(siwEnd.toString()).isEqualTo(TerminateReason.DDP_TAGGED_INVALID_STAG);
            assertThat(write).as("the Write's own completion").isNotNull();
            if (!write.isSuccess()) {  // else it was handed to TCP before the Terminate came (RFC 5040 §5.5)
                assertThat(write.status()).isEqualTo(WorkCompletionStatus.REMOTE_ACCESS_ERROR);
                assertThat(write.terminateReason()).isEqualTo(TerminateReason.DDP_TAGGED_INVALID_STAG);
            }
            assertThat(receives).as("every posted receive flushed with the decoded reason")
                    .hasSize(TransferEnd.RECEIVES)
                    .allSatisfy(c -> {
                        assertThat(c.status()).isEqualTo(WorkCompletionStatus.FLUSHED);
                        assertThat(c.terminateReason()).isEqualTo(TerminateReason.DDP_TAGGED_INVALID_STAG);
                    });
            assertThat(siwEnd.exitCode()).as(siwEnd.toString()).isEqualTo(3);
        }
    }

    @ParameterizedTest(name = "CRC {0}")
    @EnumSource(CrcMode.class)
    void linuxWriteOutOfOurBoundsIsTerminatedWithBaseOrBounds(CrcMode crc) throws Exception {
        crc.applyTo(peer);
        IwarpPeerProgram program = IwarpPeerProgram.on(peer);
        long terminatesBefore = siwTerminateLines().size();
        try (TransferEnd end = new TransferEnd(Rnic.builder(), mpa(crc), SIZE, false, TIMEOUT)) {
            QueuePair qp = end.queuePair();
            CompletableFuture<QueuePair> accepted = new CompletableFuture<>();
            try (Listener listener = end.rnic().listen(new InetSocketAddress(peer.hostBindAddress(), 0), mpa(crc),
                    request -> {
                        accepted.complete(qp);
                        return request.accept(qp);
                    });
                 BackgroundCommand siw = peer.start("exec " + program.command("-c", "-a",
                         peer.hostAddressSeenByPeer().getHostAddress(), "-b", peer.peerAddress().getHostAddress(), "-p",
                         Integer.toString(((InetSocketAddress) listener.localAddress()).getPort()), "-r", "actor",
                         "-o", "write", "-S", Integer.toString(SIZE), "-O", "-t",
                         Long.toString(PROGRAM_TIMEOUT.toSeconds())))) {
                accepted.get(TIMEOUT.toSeconds(), TimeUnit.SECONDS).established().get(TIMEOUT.toSeconds(), TimeUnit.SECONDS);

                Throwable failure = catchThrowable(end::serve);
                qp.closeFuture().get(TIMEOUT.toSeconds(), TimeUnit.SECONDS);
                // Our side first: it does not depend on how siw's application learns of the error.
                assertThat(failure).isInstanceOf(TransferEnd.TransferFailure.class);
                assertThat(qp.terminateReason()).isEqualTo(TerminateReason.DDP_TAGGED_BASE_OR_BOUNDS_VIOLATION);
                ExecResult siwEnd = siw.waitFor(TIMEOUT);
                List<String> terminates = siwTerminateLines();
                assertThat(terminates).as("siw's kernel log; " + siwEnd).hasSize((int) terminatesBefore + 1);
                assertThat(terminates.get(terminates.size() - 1)).endsWith("siw: got TERMINATE. layer 1, type 1, code 1");
                assertThat(siwEnd.stdout()).as(siwEnd.toString()).contains("oob: writing 4097 octets into the 4096 advertised");
                if (siwLostTheWrite(siwEnd)) {
                    // Quarantined, not retried: siw took our Terminate (its log above) and the connection
                    // went down, yet neither completed nor flushed the Write it had in hand.
                    LOG.warn("CRC {}: siw never completed the Linux program's Write after our Terminate; quarantined\n{}",
                            crc, siwEnd);
                    Assumptions.abort("quarantined, a known siw fault: the Write was neither completed nor flushed "
                            + "after the disconnect\n" + siwEnd);
                }
                assertThat(siwEnd.exitCode()).as("the application's work failed: " + siwEnd).isEqualTo(3);
            }
        }
    }

    /**
     * The program waited out its own timeout after the disconnect without any completion of its
     * Write, successful or failed: siw 6.1 should have completed it (handed to TCP before the
     * Terminate came) or flushed it when the queue pair left RTS. Seen twice in 13 full runs of this
     * module on 2026-11-27 (CRC on both times; one run on a loaded host, one on a quiet one), never in
     * about 30 before.
     */
    static boolean siwLostTheWrite(ExecResult siwEnd) {
        return siwEnd.exitCode() == EXIT_TIMEOUT && siwEnd.stdout().contains("cm RDMA_CM_EVENT_DISCONNECTED")
                && !siwEnd.stdout().contains("wc write");
    }

    /** siw's pr_warn for each Terminate it receives (siw_proc_terminate), oldest first. */
    private List<String> siwTerminateLines() {
        return peer.exec("dmesg | grep 'siw: got TERMINATE' || true").requireSuccess().stdout().lines().toList();
    }

    private static MpaSettings mpa(CrcMode crc) {
        return MpaSettings.builder().crc(crc.ours()).build();
    }
}
