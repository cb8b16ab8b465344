package org.iwarp4j.conformance.probe.internal;

import static org.iwarp4j.conformance.probe.internal.ObservationLog.expect;

import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.List;
import org.iwarp4j.conformance.probe.Observation;
import org.iwarp4j.mpa.RtrType;

/**
 * Runs the probes of {@code docs/probe.md} against one listener, one connection at a time, in a
 * fixed order; each connection is closed before the next is opened and bounded by the timeout
 * (the startup-timeout probe by its own wait). Every probe is something a conformant peer takes
 * without harm: at most a few FPDUs, all of them zero-length or 16 octets, errors aimed only at
 * STags nobody registered.
 *
 * <p>Every documented observation is in the result whatever the peer does: one that a probe
 * could not make (the connection failed, the peer refused what it needed) is there as
 * inconclusive, saying why ({@link ObservationLog#guard}). The probes themselves are in {@link
 * StartupProbes}, {@link CrcProbes}, {@link PrivateDataProbes}, {@link PeerToPeerProbes} and
 * {@link TerminateProbes}; what they learn of the peer for the ones after them in {@link PeerProfile}.
 */
public final class ProbeRunner {

    private final ObservationLog log = new ObservationLog();
    private final ProbeConnections connections;
    private final StartupProbes startup;
    private final CrcProbes crc;
    private final PrivateDataProbes privateData;
    private final PeerToPeerProbes peerToPeer;
    private final TerminateProbes terminate;

    public ProbeRunner(InetSocketAddress target, Duration timeout, Duration startupWait) {
        connections = new ProbeConnections(target, timeout);
        PeerProfile peer = new PeerProfile();
        AnswerWait wait = new AnswerWait(timeout);
        crc = new CrcProbes(log, connections, peer, wait);
        startup = new StartupProbes(log, connections, peer, wait, crc, timeout, startupWait);
        privateData = new PrivateDataProbes(log, connections, peer);
        peerToPeer = new PeerToPeerProbes(log, connections, peer, wait);
        terminate = new TerminateProbes(log, connections, peer, wait,
                new TerminateJudge(log, wait, new TerminateLayout(log), timeout));
    }

    /** Connections tried so far. */
    public int connections() {
        return connections.connections();
    }

    /** Connections whose TCP connect succeeded. */
    public int connected() {
        return connections.connected();
    }

    /** MPA Replies received (whole and well formed), over all connections. */
    public int replies() {
        return connections.replies();
    }

    /** Runs every probe; the observations in the order of {@code docs/probe.md}. */
    public List<Observation> run() {
        log.guard(startup::revision2, expect("mpa-revision-2", "MPA2-R-003"),
                expect("client-server-a-clear", "MPA2-R-019"));
        log.guard(crc::crcRequired, expect("crc-honoured", "MPA-R-026"), expect("crc-required", "MPA-R-023"));
        log.guard(startup::revision1, expect("mpa-revision-1", "MPA2-R-014"));
        log.guard(startup::markers, expect("markers", "MPA-R-015"));
        log.guard(privateData::privateData512, expect("private-data-512", "MPA-R-052"));
        log.guard(privateData::privateData513, expect("private-data-513", "MPA-R-051"));
        log.guard(peerToPeer::peerToPeer, expect("control-flag-a-echo", "MPA2-R-008"),
                expect("rtr-options", "MPA2-R-008"), expect("ird-ord", "MPA2-R-005"));
        for (RtrType rtr : RtrType.values()) {
            log.guard(() -> peerToPeer.rtr(rtr), expect(PeerToPeerProbes.rtrProbe(rtr), "MPA2-R-012"));
        }
        log.guard(startup::fpduBeforeReply, expect("fpdu-before-reply", "MPA-R-054"));
        log.guard(terminate::writeToInvalidStag, expect("terminate-write-invalid-stag", "DDP-R-049"),
                expect("terminate-write-invalid-stag-layout", "RDMAP-R-040"));
        log.guard(terminate::readFromInvalidStag, expect("terminate-read-invalid-stag", "RDMAP-R-014"),
                expect("terminate-read-invalid-stag-layout", "RDMAP-R-040"));
        log.guard(terminate::zeroLengthWriteBogusStag, expect("zero-length-write-bogus-stag", "DDP-R-031"));
        log.guard(startup::startupTimeout, expect("startup-timeout", "MPA-R-067"));
        return log.observations();
    }
}
