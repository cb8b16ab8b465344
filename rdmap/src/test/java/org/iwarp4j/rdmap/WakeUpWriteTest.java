package org.iwarp4j.rdmap;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.channel.Channel;
import java.time.Duration;
import java.util.Arrays;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.iwarp4j.mpa.MpaSettings;
import org.iwarp4j.testkit.Hex;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The wake-up Write ({@link QueuePairSettings.Builder#wakeUpWriteAfter}): our Initiator, having
 * sent its first FPDU to a Responder that stays silent, sends exactly one zero-length RDMA Write
 * (STag 1, TO 0; RFC 5041 §5.2, RFC 5040 §5.1; not STag 0, see docs/interop.md), so that a Linux siw caught in its accept race
 * reads the FPDU it left in its socket. A hand-driven MPA peer ({@link RawMpaPeer}) is the
 * Responder and records the octets. Where a test shows the Write was <em>not</em> sent, the next
 * FPDU is posted by a task on the connection's own event loop scheduled for after the wake-up's
 * deadline: the loop runs scheduled tasks in deadline order, so the wake-up has had its chance.
 */
class WakeUpWriteTest {

    private static final MpaSettings MPA = MpaSettings.builder().build();
    /**
     * ULPDU of a zero-length RDMA Write: DDP tagged, L=1, RDMAP opcode 0, STag 1, TO 0. STag 1,
     * not 0, as Linux siw's RTR ({@code siw_qp_mpa_rts}): some hardware treats STag 0 specially.
     */
    private static final byte[] WAKE_UP_WRITE = Hex.decode("c140 00000001 00000000 00000000");
    private static final Duration WAKE_UP = Duration.ofMillis(300);

    private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
    private final CompletableFuture<Channel> connection = new CompletableFuture<>();
    private final Rnic rnic = Rnic.builder().eventLoopThreads(1).meterRegistry(registry)
            .channelInitializer(connection::complete).build();
    private final ProtectionDomain pd = rnic.allocateProtectionDomain();
    private final CompletionQueue cq = rnic.createCompletionQueue(64);
    private final ByteBuf memory = ByteBufAllocator.DEFAULT.directBuffer(1024).writeZero(1024);
    private final MemoryRegion region = pd.register(memory, RdmaPair.ALL);

    @AfterEach
    void tearDown() {
        rnic.close();
        memory.release();
    }

    private QueuePair queuePair(Duration wakeUp) {
        return rnic.createQueuePair(QueuePairSettings.builder(pd, cq).mpa(MPA).wakeUpWriteAfter(wakeUp).build());
    }

    /** The octets 0..7 of our memory as a Send's ULPDU (DDP untagged, L=1, QN 0, MSN {@code msn}). */
    private static byte[] sendUlpdu(int msn) {
        return Hex.decode(String.format("4143 00000000 00000000 %08x 00000000 0000000000000000", msn));
    }

    private double wakeUpWritesCounted() {
        return registry.get("iwarp.rdmap.wake.up.writes").counter().count();
    }

    /** Posts a Send of octets 0..7 {@code delay} from now, by a task on the connection's event loop. */
    private void sendLater(QueuePair qp, long id, Duration delay) throws Exception {
        Channel channel = connection.get(RdmaPair.WAIT_SECONDS, TimeUnit.SECONDS);
        channel.eventLoop().schedule(() -> qp.postSend(SendWorkRequest.send(id, region.sge(0, 8))),
                delay.toNanos(), TimeUnit.NANOSECONDS);
    }

    /** Our Send {@code msn}, posted twice the wake-up delay from now, is the next FPDU {@code peer} gets. */
    private void assertNoWakeUpWriteBeforeSend(RawMpaPeer peer, QueuePair qp, int msn) throws Exception {
        sendLater(qp, msn, WAKE_UP.multipliedBy(2));
        assertThat(peer.take()).as("our Send %d, no wake-up Write", msn).isEqualTo(sendUlpdu(msn));
        assertThat(wakeUpWritesCounted()).isZero();
    }

    @Test
    void aSilentResponderGetsExactlyOneZeroLengthWriteAfterOurFirstFpdu() throws Exception {
        QueuePair qp = queuePair(WAKE_UP);
        try (RawMpaPeer responder = RawMpaPeer.acceptingFrom(qp, MPA)) {
            qp.postSend(SendWorkRequest.send(1, region.sge(0, 8)));
            assertThat(responder.take()).isEqualTo(sendUlpdu(1));
            assertThat(responder.take()).as("the wake-up Write").isEqualTo(WAKE_UP_WRITE);
            assertThat(RdmaPair.next(cq).status()).isEqualTo(WorkCompletionStatus.SUCCESS);
            // Sent once only: the next FPDU, posted well after a second deadline would have passed,
            // is our next Send; and the wake-up made no completion of its own.
            sendLater(qp, 2, WAKE_UP.multipliedBy(2));
            assertThat(responder.take()).isEqualTo(sendUlpdu(2));
            assertThat(RdmaPair.next(cq).workRequestId()).isEqualTo(2);
            assertThat(cq.poll()).isNull();
            assertThat(wakeUpWritesCounted()).isEqualTo(1.0);
            assertThat(qp.state()).isEqualTo(QueuePairState.RTS);
        }
    }

    /**
     * The responder answers our first FPDU; the wake-up is cancelled when its FPDU is read. That
     * read must come before the wake-up's deadline, and this test cannot promise it: between our
     * Send and the read lie the peer's loop, this thread and our loop, any of which a loaded machine
     * may hold up for longer than the 300 ms. So the loop notes when it read the FPDU (the receive
     * completes in that read, after the cancel); the wake-up was armed after {@code posted}, so a
     * read before {@code posted + WAKE_UP} certainly came before the deadline, and then no wake-up
     * Write may follow. A read after that may have come too late, and then a wake-up Write, at most
     * one, may precede our next Send.
     */
    @Test
    void noWakeUpWriteOnceTheResponderHasSpoken() throws Exception {
        QueuePair qp = queuePair(WAKE_UP);
        qp.postReceive(new ReceiveWorkRequest(9, region.sge(512, 512)));
        AtomicLong heardAt = new AtomicLong();
        BlockingQueue<WorkCompletion> completed = new LinkedBlockingQueue<>();
        cq.setListener(c -> { // on the connection's event loop
            if (c.workRequestId() == 9) {
                heardAt.set(System.nanoTime());
            }
            completed.add(c);
        });
        try (RawMpaPeer responder = RawMpaPeer.acceptingFrom(qp, MPA)) {
            long posted = System.nanoTime();
            qp.postSend(SendWorkRequest.send(1, region.sge(0, 8)));
            assertThat(responder.take()).isEqualTo(sendUlpdu(1));
            responder.send(RawMpaPeer.ulpduOf("V-FPDU-1"));
            for (int i = 0; i < 2; i++) {
                WorkCompletion c = completed.poll(RdmaPair.WAIT_SECONDS, TimeUnit.SECONDS);
                assertThat(c).as("completion %d of Send 1 and receive 9", i + 1).isNotNull();
                assertThat(c.workRequestId()).isIn(1L, 9L);
                assertThat(c.status()).isEqualTo(WorkCompletionStatus.SUCCESS);
            }
            if (heardAt.get() - posted < WAKE_UP.toNanos()) {
                assertNoWakeUpWriteBeforeSend(responder, qp, 2);
            } else {
                sendLater(qp, 2, WAKE_UP.multipliedBy(2));
                byte[] next = responder.take();
                if (Arrays.equals(next, WAKE_UP_WRITE)) {
                    assertThat(wakeUpWritesCounted()).as("the deadline came before the read").isEqualTo(1.0);
                    next = responder.take();
                } else {
                    assertThat(wakeUpWritesCounted()).isZero();
                }
                assertThat(next).as("our Send 2").isEqualTo(sendUlpdu(2));
            }
        } finally {
            cq.setListener(null);
        }
    }

    @Test
    void noWakeUpWriteBeforeWeHaveSentAnything() throws Exception {
        QueuePair qp = queuePair(WAKE_UP);
        try (RawMpaPeer responder = RawMpaPeer.acceptingFrom(qp, MPA)) {
            assertNoWakeUpWriteBeforeSend(responder, qp, 1);
        }
    }

    @Test
    void zeroTurnsItOff() throws Exception {
        QueuePair qp = queuePair(Duration.ZERO);
        try (RawMpaPeer responder = RawMpaPeer.acceptingFrom(qp, MPA)) {
            qp.postSend(SendWorkRequest.send(1, region.sge(0, 8)));
            assertThat(responder.take()).isEqualTo(sendUlpdu(1));
            assertNoWakeUpWriteBeforeSend(responder, qp, 2);
        }
    }

    @Test
    void aResponderNeverSendsOne() throws Exception {
        // MPA-R-061 holds a Responder's FPDUs until the Initiator's first arrives. Our Send waits
        // there past the wake-up deadline; as Responder nothing may be added behind it.
        QueuePair qp = queuePair(WAKE_UP);
        qp.postReceive(new ReceiveWorkRequest(9, region.sge(512, 512)));
        try (RawMpaPeer initiator = RawMpaPeer.connectedTo(rnic, qp, MPA, MPA)) {
            qp.postSend(SendWorkRequest.send(1, region.sge(0, 8)));
            CompletableFuture<Void> deadlinePassed = new CompletableFuture<>();
            connection.get(RdmaPair.WAIT_SECONDS, TimeUnit.SECONDS).eventLoop()
                    .schedule(() -> deadlinePassed.complete(null), WAKE_UP.toNanos() * 2, TimeUnit.NANOSECONDS);
            deadlinePassed.get(RdmaPair.WAIT_SECONDS, TimeUnit.SECONDS);
            initiator.send(RawMpaPeer.ulpduOf("V-FPDU-1"));
            assertThat(initiator.take()).isEqualTo(sendUlpdu(1));
            qp.postSend(SendWorkRequest.send(2, region.sge(0, 8)));
            assertThat(initiator.take()).as("our next Send, no wake-up Write").isEqualTo(sendUlpdu(2));
            assertThat(wakeUpWritesCounted()).isZero();
        }
    }

    @Test
    void negativeDelaysAreRefused() {
        QueuePairSettings.Builder builder = QueuePairSettings.builder(pd, cq);
        org.assertj.core.api.Assertions.assertThatIllegalArgumentException()
                .isThrownBy(() -> builder.wakeUpWriteAfter(Duration.ofMillis(-1)));
        assertThat(builder.build().wakeUpWriteAfter()).isEqualTo(Duration.ofSeconds(1));
    }
}
