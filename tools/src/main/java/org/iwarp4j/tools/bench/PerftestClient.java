package org.iwarp4j.tools.bench;

import org.iwarp4j.tools.bench.internal.Connections;
import org.iwarp4j.tools.bench.internal.CpuClock;
import org.iwarp4j.tools.bench.internal.ControlChannel;
import org.iwarp4j.tools.bench.internal.PingPongDest;
import io.micrometer.core.instrument.MeterRegistry;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.Consumer;
import org.iwarp4j.tools.bench.internal.DataEnd;
import org.iwarp4j.tools.bench.internal.RdmaSession;
import org.iwarp4j.rdmap.Rnic;

/**
 * The client of perftest's rdma_cm mode ({@code ib_write_bw -R HOST} and friends), step by step as
 * perftest 4.5's {@code main} of write_bw.c, read_bw.c and send_bw.c runs it:
 *
 * <ol>
 *   <li>connect the control queue pair; exchange versions (16 octets), cycle buffer and cache
 *       line sizes (4 octets each), the MTU ("3\0");</li>
 *   <li>a handshake of zeroed {@link PingPongDest}s; connect the data queue pairs (one connection
 *       each, same port, retried); another zeroed handshake;</li>
 *   <li>the {@link PingPongDest} handshakes that carry STags and addresses (per queue pair, twice,
 *       and once more; Send: per queue pair, once, per queue pair);</li>
 *   <li>the run; RDMA Write/Read: a handshake, the report ({@code xchg_bw_reports}), the closing
 *       handshake; Send: a handshake before each size (and after, with {@code -a}), the closing
 *       handshake.</li>
 * </ol>
 *
 * Against an iwarp4j server (its version says so) each size ends with a {@link
 * org.iwarp4j.tools.bench.internal.Verdict} exchange, and the latency tests run too (perftest's latency tools
 * use another exchange, not implemented); each end's version message also says whether it runs the
 * plain-TCP comparison. Both ends must be given the same options, as with perftest: a control message
 * of another length than the one due ends the run with an {@link IOException} that says so.
 */
public final class PerftestClient {

    private PerftestClient() {
    }

    /** Runs {@code settings} against the server at {@code server}; {@code meters} may be null. */
    public static RdmaOutcome run(BenchSettings settings, InetSocketAddress server, MeterRegistry meters,
                                  Consumer<String> progress) throws IOException, InterruptedException {
        return run(settings, server, meters, BenchListener.progressOnly(progress), null, null, null, null, null);
    }

    /**
     * As {@link #run(BenchSettings, InetSocketAddress, MeterRegistry, Consumer)}, stopped by {@code
     * listener}, telling {@code peer} the server's version string and whether it compares with plain TCP as
     * soon as they are known and calling {@code sizeStart} before and {@code sizeDone} after each size (the
     * harness's TCP comparison and row), {@code windows} around each RDMA window of an interleaved size (the
     * TCP baselines' windows), reading each measurement's CPU time with {@code cpu} (may be null).
     */
    static RdmaOutcome run(BenchSettings settings, InetSocketAddress server, MeterRegistry meters,
                           BenchListener listener, RdmaSession.SizeStart sizeStart, RdmaSession.SizeDone sizeDone,
                           RdmaSession.Windows windows, RdmaSession.PeerKnown peer, CpuClock cpu)
            throws IOException, InterruptedException {
        try (Rnic rnic = settings.rnic(settings.eventLoopThreads(), meters)) {
            Session session = new Session(rnic, settings, server, listener::progress);
            session.stopWhen(listener::stopRequested);
            if (sizeStart != null) {
                session.onSizeStart(sizeStart);
            }
            if (sizeDone != null) {
                session.onSizeDone(sizeDone);
            }
            if (windows != null) {
                session.onWindows(windows);
            }
            if (cpu != null) {
                session.measureCpu(cpu);
            }
            if (peer != null) {
                session.onPeerKnown(peer);
            }
            return session.run();
        }
    }

    private static final class Session extends RdmaSession {
        private final InetSocketAddress server;

        Session(Rnic rnic, BenchSettings settings, InetSocketAddress server, Consumer<String> progress) {
            super(rnic, settings, true, progress);
            this.server = server;
        }

        RdmaOutcome run() throws IOException, InterruptedException {
            ControlChannel[] holder = new ControlChannel[1];
            try {
                Connections.connect(() -> {
                    if (holder[0] != null) {
                        holder[0].close();
                    }
                    holder[0] = new ControlChannel(rnic, settings.mpa(), true, TIMEOUT_SECONDS);
                    return holder[0].queuePair();
                }, server, TIMEOUT_SECONDS);
            } catch (IOException | RuntimeException e) {
                if (holder[0] != null) {
                    holder[0].close();
                }
                throw e;
            }
            try (ControlChannel control = holder[0]; DataEnd data = new DataEnd(rnic, settings)) {
                this.control = control;
                this.data = data;
                exchangeSystemData();
                control.handShake(PingPongDest.ZERO);
                for (int i = 0; i < settings.queuePairs(); i++) {
                    data.add(Connections.connect(() -> data.newQueuePair(rnic), server, TIMEOUT_SECONDS));
                }
                control.handShake(PingPongDest.ZERO);
                return runTest(myDests());
            }
        }

        private List<PingPongDest> myDests() {
            List<PingPongDest> mine = new ArrayList<>();
            for (int i = 0; i < settings.queuePairs(); i++) {
                boolean credit = settings.test() == BenchTest.SEND;
                mine.add(new PingPongDest(0, settings.test() == BenchTest.READ ? 128 : 1,
                        data.queuePairs().get(i).number(), ThreadLocalRandom.current().nextInt(0x1000000),
                        credit ? data.creditRegion().stag() : data.region().stag(),
                        credit ? data.creditAddress(i) : data.targetAddress(i), new byte[16], 0, 0));
            }
            return mine;
        }
    }
}
