package org.iwarp4j.rdmap;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.channel.Channel;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.iwarp4j.mpa.MpaError;
import org.iwarp4j.mpa.MpaException;
import org.iwarp4j.mpa.MpaSettings;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A queue pair that fails without a Terminate (RFC 5040 §6.2.1's fatal error with no Terminate
 * message: nothing in the protocol names the reason) still tells the user why: the failed
 * completions and {@link QueuePair#failureCause()} carry the local cause. Two paths lead there:
 * an exception that some handler raised in the connection's pipeline, and MPA's CONNECTION_LOST
 * (RFC 5044 §8 code 1) when the peer closes the connection inside an FPDU. Neither sends a
 * Terminate. Our RNIC is the Initiator, a hand-driven MPA peer ({@link RawMpaPeer}) the Responder;
 * in both cases an RDMA Read is outstanding, as in the bench run whose "FATAL Read completion"
 * came with no reason.
 */
class LocalFailureCauseTest {

    private static final MpaSettings MPA = MpaSettings.builder().build();

    private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
    private final CompletableFuture<Channel> connection = new CompletableFuture<>();
    /** Frozen: every failure of a test falls in one interval of the failure log's rate limit. */
    private final Rnic rnic = Rnic.builder().eventLoopThreads(1).meterRegistry(registry)
            .channelInitializer(connection::complete).nanoClock(() -> 0L).build();
    private final ProtectionDomain pd = rnic.allocateProtectionDomain();
    private final CompletionQueue cq = rnic.createCompletionQueue(16);
    private final ByteBuf memory = ByteBufAllocator.DEFAULT.directBuffer(64).writeZero(64);
    private final MemoryRegion region = pd.register(memory, RdmaPair.ALL);
    private final QueuePair qp = rnic.createQueuePair(QueuePairSettings.builder(pd, cq).mpa(MPA)
            .wakeUpWriteAfter(Duration.ZERO).build());

    @AfterEach
    void tearDown() {
        rnic.close();
        memory.release();
    }

    /** Posts an RDMA Read of 32 octets and waits until its Read Request reached {@code peer}. */
    private void readOutstanding(RawMpaPeer peer) throws InterruptedException {
        qp.postSend(SendWorkRequest.rdmaRead(9, 0x1234, 0, region.sge(0, 32)));
        byte[] readRequest = peer.take();
        assertThat(readRequest[1] & 0x0F).as("RDMAP opcode of a Read Request").isEqualTo(1);
    }

    private double terminatesCounted() {
        return registry.find("iwarp.rdmap.terminates").counters().stream().mapToDouble(Counter::count).sum()
                + registry.find("iwarp.rdmap.terminates.withheld").counters().stream()
                        .mapToDouble(Counter::count).sum();
    }

    @Test
    void anExceptionInThePipelineNamesItsClassAndMessageInTheFailedCompletion() throws Exception {
        try (RawMpaPeer peer = RawMpaPeer.acceptingFrom(qp, MPA)) {
            readOutstanding(peer);
            IllegalStateException boom = new IllegalStateException("a handler broke");
            connection.get(RdmaPair.WAIT_SECONDS, TimeUnit.SECONDS).pipeline().fireExceptionCaught(boom);

            WorkCompletion read = RdmaPair.next(cq);
            assertThat(read.workRequestId()).isEqualTo(9);
            assertThat(read.opcode()).isEqualTo(WorkCompletionOpcode.RDMA_READ);
            assertThat(read.status()).isEqualTo(WorkCompletionStatus.FATAL);
            assertThat(read.terminateReason()).isNull();
            assertThat(read.failureCause()).isSameAs(boom);
            assertThat(read.toString()).contains("java.lang.IllegalStateException: a handler broke");
            qp.closeFuture().get(RdmaPair.WAIT_SECONDS, TimeUnit.SECONDS);
            assertThat(qp.failureCause()).isSameAs(boom);
            assertThat(qp.state()).isEqualTo(QueuePairState.ERROR);
            // The RFC reaction is unchanged: a local exception is no protocol error; no Terminate.
            assertThat(peer.takeAllUntilClosed()).as("ULPDUs after the Read Request").isEmpty();
            assertThat(qp.terminateReason()).isNull();
            assertThat(terminatesCounted()).isZero();
        }
    }

    @Test
    void aPeerThatClosesInsideAnFpduIsNamedInTheFailedCompletion() throws Exception {
        RawMpaPeer peer = RawMpaPeer.acceptingFrom(qp, MPA);
        try {
            readOutstanding(peer);
            // ULPDU_Length 32 (RFC 5044 §6.1), then only 4 of its octets: the FPDU never ends.
            peer.sendRaw(new byte[] {0x00, 0x20, (byte) 0xC1, 0x42, 0x00, 0x00});
        } finally {
            peer.close();
        }

        WorkCompletion read = RdmaPair.next(cq);
        assertThat(read.workRequestId()).isEqualTo(9);
        assertThat(read.status()).isEqualTo(WorkCompletionStatus.FATAL);
        assertThat(read.terminateReason()).isNull();
        assertThat(read.failureCause()).hasMessageStartingWith("connection closed by the peer mid-FPDU");
        assertThat(read.failureCause().getCause()).isInstanceOfSatisfying(MpaException.class,
                e -> assertThat(e.error()).isEqualTo(MpaError.CONNECTION_LOST));
        assertThat(read.toString()).contains("connection closed by the peer mid-FPDU");
        qp.closeFuture().get(RdmaPair.WAIT_SECONDS, TimeUnit.SECONDS);
        assertThat(qp.failureCause()).isSameAs(read.failureCause());
        // RFC 5044 §8: the connection is gone; no Terminate is sent for it, none withheld.
        assertThat(qp.terminateReason()).isNull();
        assertThat(qp.terminateWithheld()).isFalse();
        assertThat(terminatesCounted()).isZero();
    }

    @Test
    void aPeerThatClosesBetweenFpdusWithAReadOutstandingIsNamedInTheFlushedCompletion() throws Exception {
        RawMpaPeer peer = RawMpaPeer.acceptingFrom(qp, MPA);
        try {
            readOutstanding(peer);
        } finally {
            peer.close(); // no partial FPDU: MPA reports nothing, the connection just ends
        }

        WorkCompletion read = RdmaPair.next(cq);
        assertThat(read.workRequestId()).isEqualTo(9);
        assertThat(read.status()).isEqualTo(WorkCompletionStatus.FLUSHED);
        assertThat(read.terminateReason()).isNull();
        assertThat(read.failureCause()).hasMessageStartingWith("connection closed with work outstanding");
        qp.closeFuture().get(RdmaPair.WAIT_SECONDS, TimeUnit.SECONDS);
        assertThat(qp.failureCause()).isSameAs(read.failureCause());
        assertThat(qp.terminateReason()).isNull();
        assertThat(terminatesCounted()).isZero();
    }

    /**
     * A peer can make a queue pair fail without a Terminate once per connection it opens; the
     * warnings for those failures are rate-limited per RNIC so that doing it in a loop cannot
     * flood the log: past the burst they are counted, not logged.
     */
    @Test
    void failuresAPeerCanRepeatAreLoggedAtMostABurstPerInterval() throws Exception {
        int failures = Rnic.FAILURE_LOG_BURST + 2;
        for (int i = 0; i < failures; i++) {
            QueuePair victim = i == 0 ? qp : rnic.createQueuePair(QueuePairSettings.builder(pd, cq).mpa(MPA)
                    .wakeUpWriteAfter(Duration.ZERO).build());
            try (RawMpaPeer peer = RawMpaPeer.acceptingFrom(victim, MPA)) {
                peer.sendRaw(new byte[] {0x00, 0x20, (byte) 0xC1, 0x42}); // an FPDU that never ends
            }
            victim.closeFuture().get(RdmaPair.WAIT_SECONDS, TimeUnit.SECONDS);
            assertThat(victim.failureCause()).as("failure " + i).hasMessageStartingWith("connection closed by the peer mid-FPDU");
        }
        assertThat(rnic.failureLogLimit().suppressedTotal()).isEqualTo(failures - Rnic.FAILURE_LOG_BURST);
    }
}
