package org.iwarp4j.nfs.internal.v4;

import static org.assertj.core.api.Assertions.assertThat;
import static org.iwarp4j.nfs.internal.v4.Nfs4Harness.*;
import static org.iwarp4j.nfs.v4.Nfs4Constants.*;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.iwarp4j.nfs.internal.FaultyHandles;
import org.iwarp4j.nfs.v4.ChannelAttrs4;
import org.iwarp4j.oncrpc.RpcCallInfo;
import org.iwarp4j.oncrpc.RpcClientTransport;
import org.iwarp4j.oncrpc.RpcTransportException;
import org.iwarp4j.oncrpc.XdrMessage;
import org.iwarp4j.oncrpc.internal.LogRateLimit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Warnings of the NFSv4.1 server that a client can provoke in a loop — a COMPOUND that meets a
 * server fault, a back channel that fails every callback, a new client when the client records
 * are full — reach the log at most {@link Nfs4Context#WARNING_BURST} times per interval of the
 * server's clock; the rest are counted into the next one let through. The replies are the same
 * whether warned of or not. (The clocks here stand still unless the test moves them.)
 */
class Nfs4WarningLimitsTest {

    @TempDir
    Path dir;

    @Test
    void aServerFaultTheClientRepeatsIsWarnedOfAtMostTheBurstPerInterval() throws Exception {
        Files.write(dir.resolve("f"), new byte[10]);
        AtomicReference<FaultyHandles> faulty = new AtomicReference<>();
        try (Nfs4Harness h = new Nfs4Harness(dir, Nfs4Settings.defaults(), null, export -> {
            faulty.set(new FaultyHandles(export));
            return faulty.get().handles;
        })) {
            h.session();
            byte[] fh = h.fhOf("f");

            faulty.get().armed.set(true);
            int calls = Nfs4Context.WARNING_BURST + 3;
            for (int i = 0; i < calls; i++) {
                Reply fault = h.sequenced(putfh(fh));
                assertThat(fault.status).as("call %d", i).isEqualTo(NFS4ERR_SERVERFAULT);
            }
            assertThat(h.processor.serverFaultWarningsHeld()).as("held back").isEqualTo(3);

            h.clock.addAndGet(TimeUnit.SECONDS.toMillis(Nfs4Context.WARNING_INTERVAL_SECONDS));
            assertThat(h.sequenced(putfh(fh)).status).isEqualTo(NFS4ERR_SERVERFAULT);
            assertThat(h.processor.serverFaultWarningsHeld()).as("the next interval's first is let through")
                    .isEqualTo(3);
        }
    }

    /** Records any host can make and leave to expire are logged as expired at most the burst per interval. */
    @Test
    void expiredClientsAreLoggedAtMostTheBurstPerInterval() throws Exception {
        try (Nfs4Harness h = new Nfs4Harness(dir)) {
            int clients = Nfs4Context.WARNING_BURST + 6;
            for (int i = 0; i < clients; i++) {
                assertThat(h.compound(exchangeId("passer-by-" + i, 1)).op(OP_EXCHANGE_ID)).isEqualTo(NFS4_OK);
            }
            h.clock.addAndGet(TimeUnit.SECONDS.toMillis(Nfs4Settings.defaults().leaseSeconds() + 1));
            assertThat(h.compound(exchangeId("next", 1)).op(OP_EXCHANGE_ID)).isEqualTo(NFS4_OK);
            assertThat(h.ctx.clients().size()).as("only the last one left").isEqualTo(1);
            assertThat(h.ctx.clients().expiryLinesHeld()).isEqualTo(6);
        }
    }

    @Test
    void clientsTheFullRecordsCannotTakeAreWarnedOfAtMostTheBurstPerInterval() throws Exception {
        AtomicLong clock = new AtomicLong();
        LogRateLimit limit = new LogRateLimit(Nfs4Context.WARNING_BURST, Nfs4Context.WARNING_INTERVAL_SECONDS,
                TimeUnit.SECONDS, clock::get);
        ClientRecords records = ClientRecords.open(dir, 2, limit);
        records.add(new byte[] {1});
        records.add(new byte[] {2});
        for (int i = 0; i < Nfs4Context.WARNING_BURST + 5; i++) {
            records.add(new byte[] {3, (byte) i});
        }
        assertThat(records.size()).as("the cap").isEqualTo(2);
        assertThat(records.warningsHeld()).isEqualTo(5);
    }

    @Test
    void failedCallbacksAreWarnedOfAtMostTheBurstPerInterval() throws Exception {
        AtomicLong clock = new AtomicLong();
        Callbacks callbacks = new Callbacks(new LogRateLimit(Nfs4Context.WARNING_BURST,
                Nfs4Context.WARNING_INTERVAL_SECONDS, TimeUnit.SECONDS, clock::get));
        ChannelAttrs4 attrs = new ChannelAttrs4(0, 4096, 4096, 0, 8, 1, -1);
        SessionTable.Session s = new SessionTable.Session(new byte[16], null, attrs, attrs, 0, 0x40000000);
        s.backchannel = new RefusingTransport();
        int probes = Nfs4Context.WARNING_BURST + 4;
        for (int i = 0; i < probes; i++) {
            callbacks.probe(s);
        }
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (callbacks.failed() < probes) {
            assertThat(System.nanoTime()).as("every CB_NULL failed in time").isLessThan(deadline);
            Thread.onSpinWait();
        }
        assertThat(callbacks.failed()).isEqualTo(probes);
        assertThat(callbacks.failureWarningsHeld()).isEqualTo(4);
    }

    /** A back channel whose every call fails at once, as a connection gone. */
    private static final class RefusingTransport implements RpcClientTransport {
        @Override
        public CompletableFuture<XdrMessage> call(RpcCallInfo info, XdrMessage call) {
            call.release();
            return CompletableFuture.failedFuture(new RpcTransportException("the back channel is gone"));
        }

        @Override
        public String name() {
            return "refusing";
        }

        @Override
        public void close() {
        }
    }
}
