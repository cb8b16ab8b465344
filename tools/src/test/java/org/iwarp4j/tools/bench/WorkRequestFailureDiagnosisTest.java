package org.iwarp4j.tools.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;
import org.iwarp4j.mpa.MpaSettings;
import org.iwarp4j.mpa.NegotiationMode;
import org.iwarp4j.rdmap.QueuePair;
import org.iwarp4j.rdmap.QueuePairSettings;
import org.iwarp4j.rdmap.Rnic;
import org.iwarp4j.rdmap.SendWorkRequest;
import org.iwarp4j.rdmap.Transport;
import org.iwarp4j.rdmap.WorkCompletion;
import org.junit.jupiter.api.Test;

/**
 * A loopback bench whose server queue pair goes away in the middle of the measurement: the client's
 * error carries a diagnosis that names the failed work request, the completion's status and reason
 * (or, when the client had nothing outstanding at that moment, the refused post), and the state of
 * the server's queue pair (the server end runs in this process), as the CLI prints it on stderr.
 */
class WorkRequestFailureDiagnosisTest {

    @Test
    void aServerQueuePairAbortedMidRunIsNamedInTheClientsDiagnosis() throws Exception {
        // 20 s of RDMA Reads, which the abort cuts short; no TCP comparison.
        BenchSettings settings = new BenchSettings(BenchTest.READ, List.of(65536), 0, 20, 0, 1, 8,
                NegotiationMode.REQUIRE, false, 2, 0, Transport.best(), false);
        SimpleMeterRegistry clientMeters = new SimpleMeterRegistry();
        AtomicReference<PerftestServer> server = new AtomicReference<>();
        CompletableFuture<QueuePair> aborted = new CompletableFuture<>();
        BenchListener listener = new BenchListener() {
            @Override
            public void progress(String what) {
                if (what.startsWith("RDMA Read ") && !aborted.isDone()) {
                    Thread t = new Thread(() -> abortOnceReadsComplete(clientMeters, server.get(), aborted));
                    t.setDaemon(true);
                    t.start();
                }
            }
        };

        WorkRequestFailedException failure = catchThrowableOfType(WorkRequestFailedException.class,
                () -> BenchRunner.loopback(settings, clientMeters, null, listener, BenchRunner.Order.RDMA_FIRST,
                        server::set));

        QueuePair serverQp = aborted.get(30, TimeUnit.SECONDS);
        assertThat(failure).as("the client's error").isNotNull();
        StringWriter err = new StringWriter();
        failure.printDiagnosis(new PrintWriter(err), "iwarp bench read:   ");
        String printed = err.toString();
        System.out.print(printed);
        int qp = failure.queuePair().number();
        // Which of the two the client meets depends on whether Reads were outstanding when the
        // connection went: flushed Reads complete with an error; with none outstanding (all had
        // completed, the next batch not yet posted) the next post is refused.
        if (failure.completion().isPresent()) {
            WorkCompletion completion = failure.completion().get();
            assertThat(completion.isSuccess()).isFalse();
            assertThat(printed).contains("iwarp bench read:   failed work request: RDMA Read #")
                    .contains("of queue pair 0 (QP " + qp + "), 65536 octets")
                    .contains("completion: status " + completion.status() + ", reason: ");
        } else {
            assertThat(failure).hasMessage("RDMA Reads could not be posted: queue pair " + qp
                    + " is ERROR; nothing can be posted");
            assertThat(printed).containsPattern("iwarp bench read:   failed work request: RDMA Read #\\d+ of queue pair 0 "
                            + "\\(QP " + qp + "\\), 65536 octets, .* \\(not posted\\)")
                    .contains("iwarp bench read:   post refused: queue pair " + qp + " is ERROR; nothing can be posted");
        }
        assertThat(printed).contains("this end's queue pair " + qp + ": state ERROR")
                .contains("server's queue pair " + serverQp.number() + ": state ERROR, no Terminate sent or received");
    }

    @Test
    void aRefusedPostIsDiagnosedWithTheRefusalAndTheQueuePair() {
        try (Rnic rnic = Rnic.builder().eventLoopThreads(1).build()) {
            QueuePair qp = rnic.createQueuePair(QueuePairSettings.builder(rnic.allocateProtectionDomain(),
                    rnic.createCompletionQueue(8)).mpa(MpaSettings.builder().build()).build());
            qp.abort();
            IllegalStateException refusal = catchThrowableOfType(IllegalStateException.class,
                    () -> qp.postSend(SendWorkRequest.send(7)));

            WorkRequestFailedException failure = WorkRequestFailedException.refused("Send",
                    "Send #7 of queue pair 0", qp, refusal.getMessage());

            assertThat(failure.completion()).isEmpty();
            assertThat(failure.queuePair()).isSameAs(qp);
            assertThat(failure).hasMessage("Sends could not be posted: queue pair " + qp.number()
                    + " is ERROR; nothing can be posted");
            assertThat(failure.diagnosis()).containsExactly(
                    "failed work request: Send #7 of queue pair 0 (not posted)",
                    "post refused: queue pair " + qp.number() + " is ERROR; nothing can be posted",
                    "this end's queue pair " + qp.number() + ": state ERROR, no Terminate sent or received",
                    "server end: not in this process (see its own output)");
        }
    }

    /** Waits until the client has completed RDMA Reads (the run is under way), then aborts the server's queue pair. */
    private static void abortOnceReadsComplete(SimpleMeterRegistry clientMeters, PerftestServer server,
                                               CompletableFuture<QueuePair> aborted) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (System.nanoTime() < deadline) {
            Counter reads = clientMeters.find("iwarp.rdmap.completions").tag("opcode", "rdma_read")
                    .tag("status", "success").counter();
            if (reads != null && reads.count() >= 16) {
                QueuePair qp = server.dataQueuePairs().get(0);
                qp.abort();
                aborted.complete(qp);
                return;
            }
            LockSupport.parkNanos(1_000_000); // polls the counter until the deadline
        }
        aborted.completeExceptionally(new AssertionError("no RDMA Read completed within 30 s"));
    }
}
