package org.iwarp4j.conformance.probe.internal;

import io.netty.buffer.ByteBuf;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.iwarp4j.conformance.probe.Observation;
import org.iwarp4j.conformance.probe.Verdict;
import org.iwarp4j.conformance.probe.internal.ScriptedConnection.Outcome;
import org.iwarp4j.conformance.probe.internal.ScriptedConnection.Received;
import org.iwarp4j.conformance.probe.internal.ScriptedConnection.StartupAnswer;
import org.iwarp4j.mpa.EnhancedConnectionData;
import org.iwarp4j.mpa.MpaConstants;
import org.iwarp4j.mpa.MpaStartupFrame;
import org.iwarp4j.mpa.RtrType;
import org.iwarp4j.rdmap.TerminateReason;
import org.iwarp4j.rdmap.internal.wire.ReadRequestHeader;
import org.iwarp4j.rdmap.internal.wire.TerminateMessage;

/**
 * Runs the probes of {@code docs/probe.md} against one listener, one connection at a time, in a
 * fixed order; each connection is closed before the next is opened and bounded by the timeout
 * (the startup-timeout probe by its own wait). Every probe is something a conformant peer takes
 * without harm: at most a few FPDUs, all of them zero-length or 16 octets, errors aimed only at
 * STags nobody registered.
 */
public final class ProbeRunner {

    /** The IRD and ORD we offer: small, so that a peer's grant shows whether it negotiates. */
    static final int OUR_IRD = 4;
    static final int OUR_ORD = 4;
    /** An STag no peer should have handed out (index 0xDEADBE, key 0x00). */
    static final int BOGUS_STAG = 0xDEADBE00;
    /** The sink STag of our zero-length Reads; never checked by the peer (RFC 5040 §5.2.1). */
    static final int PING_SINK_STAG = 1;
    /**
     * Our liveness check: a zero-length Read Request, sink and source STag 1 as Linux siw's Read
     * RTR has them; RFC 5040 §5.2.1 says neither is checked and one zero-length Read Response answers it.
     */
    static final ReadRequestHeader PING = new ReadRequestHeader(PING_SINK_STAG, 0, 0, 1, 0);
    static final byte[] SIXTEEN = "iwarp4j probe 16".getBytes(java.nio.charset.StandardCharsets.US_ASCII);

    private final InetSocketAddress target;
    private final Duration timeout;
    private final Duration startupWait;
    private final List<Observation> observations = new ArrayList<>();
    private int connections;
    /** Whether the peer accepts an enhanced (RFC 6581) Request; later probes use it if so. */
    private boolean enhanced;
    /** Whether the peer took our C=1 Request (mpa-revision-2); if not, crc-required tells whether C=0 works. */
    private boolean crcAccepted;
    /** The C bit of later Requests: 1 unless the peer refused it and accepted C=0. */
    private boolean useCrc = true;

    public ProbeRunner(InetSocketAddress target, Duration timeout, Duration startupWait) {
        this.target = target;
        this.timeout = timeout;
        this.startupWait = startupWait;
    }

    /** Connections opened so far. */
    public int connections() {
        return connections;
    }

    /** Runs every probe; the observations in the order of {@code docs/probe.md}. */
    public List<Observation> run() {
        guard("mpa-revision-2", "MPA2-R-003", this::revision2);
        guard("crc-required", "MPA-R-023", this::crcRequired);
        guard("mpa-revision-1", "MPA2-R-014", this::revision1);
        guard("markers", "MPA-R-015", this::markers);
        guard("private-data-512", "MPA-R-052", this::privateData512);
        guard("private-data-513", "MPA-R-051", this::privateData513);
        guard("control-flag-a-echo", "MPA2-R-008", this::peerToPeer);
        for (RtrType rtr : RtrType.values()) {
            guard("rtr-" + rtr.name().toLowerCase(java.util.Locale.ROOT), "MPA2-R-012", () -> rtr(rtr));
        }
        guard("fpdu-before-reply", "MPA-R-054", this::fpduBeforeReply);
        guard("terminate-write-invalid-stag", "DDP-R-049", this::writeToInvalidStag);
        guard("terminate-read-invalid-stag", "RDMAP-R-014", this::readFromInvalidStag);
        guard("zero-length-write-bogus-stag", "DDP-R-031", this::zeroLengthWriteBogusStag);
        guard("startup-timeout", "MPA-R-067", this::startupTimeout);
        return List.copyOf(observations);
    }

    private interface Step {
        void run() throws IOException;
    }

    /** The operating system's words for a failed connection ("Connection refused"), without Java's class name. */
    private static String words(IOException e) {
        if (e instanceof java.net.SocketTimeoutException) {
            return "no answer within the timeout";
        }
        if (e instanceof java.net.UnknownHostException) {
            return "no such host";
        }
        return e.getMessage() == null || e.getMessage().isBlank() ? e.getClass().getSimpleName() : e.getMessage();
    }

    /** Runs one probe; a connection that cannot be opened or fails makes it inconclusive. */
    private void guard(String probe, String requirement, Step step) {
        int before = observations.size();
        try {
            step.run();
        } catch (IOException e) {
            if (observations.size() == before) {
                add(probe, requirement, Verdict.INCONCLUSIVE, "connection failed: " + words(e), "", Map.of(), 0);
            }
        } catch (RuntimeException e) {
            // Octets our decoders could not take apart: reported, and the next probe still runs.
            if (observations.size() == before) {
                add(probe, requirement, Verdict.INCONCLUSIVE, "probe failed: " + e, "", Map.of(), 0);
            }
        }
    }

    private void add(String probe, String requirement, Verdict verdict, String observed, String expected,
                     Map<String, Object> facts, long millis) {
        observations.add(new Observation(probe, requirement, verdict, observed, expected, facts, millis));
    }

    private ScriptedConnection open() throws IOException {
        connections++;
        return ScriptedConnection.open(target, timeout);
    }

    private static EnhancedConnectionData clientServer() {
        return new EnhancedConnectionData(false, Set.of(), OUR_IRD, OUR_ORD);
    }

    /** An accepting Request as later probes use it: enhanced if the peer takes that, C=1, no markers. */
    private MpaStartupFrame plainRequest() {
        return enhanced ? MpaStartupFrame.request(false, useCrc, 2, clientServer(), new byte[0])
                : MpaStartupFrame.request(false, useCrc, 1, null, new byte[0]);
    }

    private static Map<String, Object> replyFacts(StartupAnswer answer) {
        Map<String, Object> facts = new LinkedHashMap<>();
        facts.put("reply", answer.outcome().name().toLowerCase(java.util.Locale.ROOT));
        MpaStartupFrame reply = answer.reply();
        if (reply != null) {
            facts.put("reply_revision", reply.revision());
            facts.put("reply_flags", String.format("0x%02x", reply.flags()));
            facts.put("reply_reject", reply.reject());
            facts.put("reply_crc", reply.crc());
            facts.put("reply_markers", reply.markers());
            facts.put("reply_pd_length", reply.privateDataLength());
            EnhancedConnectionData word = reply.enhancedData();
            if (word != null) {
                facts.put("reply_peer_to_peer", word.peerToPeer());
                facts.put("reply_rtr", rtrNames(word.rtrTypes()));
                facts.put("reply_ird", word.ird());
                facts.put("reply_ord", word.ord());
            }
        } else if (!answer.detail().isEmpty()) {
            facts.put("reply_detail", answer.detail());
        }
        return facts;
    }

    private static String rtrNames(Set<RtrType> types) {
        StringBuilder names = new StringBuilder();
        for (RtrType t : types) {
            names.append(names.length() == 0 ? "" : ",").append(t.name().toLowerCase(java.util.Locale.ROOT));
        }
        return names.toString();
    }

    private static boolean accepted(StartupAnswer answer) {
        return answer.outcome() == Outcome.RECEIVED && !answer.reply().reject();
    }

    /** "closed without a Reply", "a Reply with R=1", ... */
    private static String describe(StartupAnswer answer) {
        switch (answer.outcome()) {
            case RECEIVED:
                MpaStartupFrame reply = answer.reply();
                return (reply.reject() ? "rejected: Reply R=1" : "accepted: Reply R=0") + ", rev " + reply.revision()
                        + (reply.crc() ? ", C=1" : ", C=0") + (reply.markers() ? ", M=1" : "")
                        + (reply.enhanced() ? ", " + word(reply.enhancedData()) : "");
            case CLOSED:
                return answer.detail() + " without a Reply";
            case TIMEOUT:
                return "no Reply within the timeout";
            default:
                return "malformed Reply: " + answer.detail();
        }
    }

    private static String word(EnhancedConnectionData word) {
        return (word.peerToPeer() ? "A=1 RTR {" + rtrNames(word.rtrTypes()) + "}" : "A=0")
                + " IRD " + word.ird() + " ORD " + word.ord();
    }

    /** Whether the peer may get a Read Request from us: its IRD from the Reply, unknown (assumed yes) for rev 1. */
    private static boolean mayRead(MpaStartupFrame reply) {
        return !reply.enhanced() || reply.enhancedData().ird() > 0;
    }

    /** Sends a zero-length Read Request (RFC 5040 §5.2.1: never checked, answered by one zero-length Read Response). */
    private static void ping(ScriptedConnection c, int msn) throws IOException {
        c.send(Wire.readRequest(msn, PING));
    }

    /** How long we wait for an answer to our first FPDUs before sending a wake-up Write. */
    static final Duration WAKE_UP_AFTER = Duration.ofSeconds(1);

    /**
     * The peer's answer to what we just sent. If nothing comes within {@link #WAKE_UP_AFTER}, one
     * zero-length Write (STag 1, TO 0: never checked, never delivered, DDP-R-031) goes out and we
     * wait for the rest of the timeout: Linux siw 6.1 as Responder can leave an FPDU that arrived
     * right after its Reply unread until more data comes (docs/siw-interop.md), and a probe must
     * not mistake that for silence. {@code facts} gets {@code wake_up_write} when one was sent.
     */
    private Received answer(ScriptedConnection c, Map<String, Object> facts) throws IOException {
        Received first = c.next(WAKE_UP_AFTER.compareTo(timeout) < 0 ? WAKE_UP_AFTER : timeout);
        if (first.outcome() != Outcome.TIMEOUT || WAKE_UP_AFTER.compareTo(timeout) >= 0) {
            return first;
        }
        facts.put("wake_up_write", true);
        c.send(Wire.write(1, 0, new byte[0]));
        return c.next(timeout.minus(WAKE_UP_AFTER));
    }

    /** What the next ULPDU is, for facts and messages. */
    private static String describe(Received received) {
        if (received.outcome() != Outcome.RECEIVED) {
            return received.outcome() == Outcome.TIMEOUT ? "no answer within the timeout"
                    : received.outcome() == Outcome.CLOSED ? "connection " + received.detail()
                    : "malformed FPDU: " + received.detail();
        }
        Wire.Message m = Wire.parse(received.ulpdu());
        if (m.opcode() == null) {
            return "unknown ULPDU " + (m.problem().isEmpty() ? "" : m.problem());
        }
        if (m.terminate() != null) {
            return "Terminate " + reasonText(m.terminate().reason());
        }
        return m.opcode().name().toLowerCase(java.util.Locale.ROOT).replace('_', ' ')
                + " of " + m.payloadLength() + " octets";
    }

    private static String reasonText(TerminateReason reason) {
        return String.format("%x/%x/%02x (%s)", reason.layerCode(), reason.errorType(), reason.errorCode(),
                reason.description());
    }

    // ---- the probes ----

    private void revision2() throws IOException {
        MpaStartupFrame request = MpaStartupFrame.request(false, true, 2, clientServer(), new byte[0]);
        try (ScriptedConnection c = open()) {
            c.sendRaw(ScriptedConnection.encode(request));
            StartupAnswer answer = c.readReply();
            Map<String, Object> facts = replyFacts(answer);
            MpaStartupFrame reply = answer.reply();
            String expected = "an enhanced Reply: rev 2, S=1, the IRD/ORD word";
            if (!accepted(answer)) {
                add("mpa-revision-2", "MPA2-R-003", answer.outcome() == Outcome.TIMEOUT ? Verdict.INCONCLUSIVE
                        : Verdict.FAIL, describe(answer), expected, facts, c.elapsedMillis());
                return;
            }
            crcAccepted = true;
            enhanced = reply.revision() == 2 && reply.enhanced();
            add("mpa-revision-2", "MPA2-R-003", enhanced ? Verdict.PASS : Verdict.FAIL,
                    describe(answer) + (enhanced ? "" : " (answered as an RFC 5044 Responder)"), expected, facts,
                    c.elapsedMillis());
            if (enhanced) {
                EnhancedConnectionData word = reply.enhancedData();
                boolean clear = !word.peerToPeer() && word.rtrTypes().isEmpty();
                add("client-server-a-clear", "MPA2-R-019", clear ? Verdict.PASS : Verdict.FAIL,
                        "Request A=0; Reply " + word(word), "A=0 and no RTR bits in the Reply",
                        Map.of("reply_peer_to_peer", word.peerToPeer(), "reply_rtr", rtrNames(word.rtrTypes())), 0);
            }
            // C=1 in our Request: the peer must generate CRCs (MPA-R-026, MPA-R-047); its first FPDU shows it.
            c.fullOperation(true, reply.markers(), false);
            String expectedCrc = "the peer's FPDUs carry a correct CRC32c (our Request had C=1)";
            if (!mayRead(reply)) {
                add("crc-honoured", "MPA-R-026", Verdict.INCONCLUSIVE, "the peer granted IRD 0: no Read to answer",
                        expectedCrc, Map.of(), 0);
                return;
            }
            ping(c, 1);
            Map<String, Object> crcFacts = new LinkedHashMap<>();
            Received answerToPing = answer(c, crcFacts);
            crcFacts.put("answer", describe(answerToPing));
            Verdict verdict;
            String observed;
            if (answerToPing.outcome() == Outcome.MALFORMED) {
                verdict = Verdict.FAIL;
                observed = "its FPDU failed our CRC check: " + answerToPing.detail();
            } else if (answerToPing.outcome() == Outcome.RECEIVED) {
                boolean rr = Wire.parse(answerToPing.ulpdu()).isEmptyReadResponse();
                verdict = rr ? Verdict.PASS : Verdict.INCONCLUSIVE;
                observed = "its " + describe(answerToPing) + " carried a correct CRC32c";
            } else {
                verdict = Verdict.INCONCLUSIVE;
                observed = "no FPDU to check: " + describe(answerToPing);
            }
            add("crc-honoured", "MPA-R-026", verdict, observed, expectedCrc, crcFacts, 0);
        }
    }

    private void revision1() throws IOException {
        try (ScriptedConnection c = open()) {
            c.sendRaw(ScriptedConnection.encode(MpaStartupFrame.request(false, useCrc, 1, null, new byte[0])));
            StartupAnswer answer = c.readReply();
            boolean ok = accepted(answer) && answer.reply().revision() == 1 && !answer.reply().enhanced();
            add("mpa-revision-1", "MPA2-R-014", ok ? Verdict.PASS
                    : answer.outcome() == Outcome.TIMEOUT ? Verdict.INCONCLUSIVE : Verdict.FAIL,
                    describe(answer), "a plain RFC 5044 Reply: rev 1, R=0, no IRD/ORD word", replyFacts(answer),
                    c.elapsedMillis());
        }
    }

    private void crcRequired() throws IOException {
        MpaStartupFrame request = MpaStartupFrame.request(false, false, 2, clientServer(), new byte[0]);
        try (ScriptedConnection c = open()) {
            c.sendRaw(ScriptedConnection.encode(request));
            StartupAnswer answer = c.readReply();
            if (!crcAccepted && accepted(answer)) {
                // The C=1 Request of mpa-revision-2 was refused, this C=0 one is taken: no CRC support.
                useCrc = false;
                enhanced = answer.reply().revision() == 2 && answer.reply().enhanced();
                add("crc-honoured", "MPA-R-023", Verdict.FAIL, "refuses our C=1 Request, accepts C=0",
                        "every MPA implementation supports CRC", replyFacts(answer), 0);
            }
            String observed;
            if (accepted(answer)) {
                observed = answer.reply().crc() ? "requires CRC: answers C=1 to our C=0"
                        : "does not require CRC: answers C=0 to our C=0";
            } else {
                observed = "refuses a Request with C=0: " + describe(answer);
            }
            add("crc-required", "MPA-R-023", answer.outcome() == Outcome.TIMEOUT ? Verdict.INCONCLUSIVE : Verdict.INFO,
                    observed, "either: CRC may be required by configuration, or turned off when both ends ask",
                    replyFacts(answer), c.elapsedMillis());
        }
    }

    private void markers() throws IOException {
        MpaStartupFrame request = enhanced ? MpaStartupFrame.request(true, useCrc, 2, clientServer(), new byte[0])
                : MpaStartupFrame.request(true, useCrc, 1, null, new byte[0]);
        String expected = "accepts M=1 and puts a marker every 512 octets of what it sends";
        try (ScriptedConnection c = open()) {
            c.sendRaw(ScriptedConnection.encode(request));
            StartupAnswer answer = c.readReply();
            Map<String, Object> facts = replyFacts(answer);
            if (answer.outcome() == Outcome.TIMEOUT) {
                add("markers", "MPA-R-015", Verdict.INCONCLUSIVE, describe(answer), expected, facts, c.elapsedMillis());
                return;
            }
            if (!accepted(answer)) {
                String how = answer.outcome() == Outcome.RECEIVED ? "rejects markers with R=1" : "answers wrongly: "
                        + describe(answer);
                add("markers", "MPA-R-015", Verdict.FAIL, how, expected, facts, c.elapsedMillis());
                return;
            }
            MpaStartupFrame reply = answer.reply();
            c.fullOperation(useCrc || reply.crc(), reply.markers(), true);
            if (!mayRead(reply)) {
                add("markers", "MPA-R-015", Verdict.INCONCLUSIVE, "accepts M=1; IRD 0, so no FPDU to check",
                        expected, facts, c.elapsedMillis());
                return;
            }
            ping(c, 1);
            Received received = answer(c, facts);
            facts.put("answer", describe(received));
            Verdict verdict;
            String observed;
            if (received.outcome() == Outcome.RECEIVED) {
                verdict = Verdict.PASS;
                observed = "accepts M=1; its " + describe(received) + " had its markers in place";
            } else if (received.outcome() == Outcome.MALFORMED) {
                verdict = Verdict.FAIL;
                observed = "accepts M=1 but answers wrongly: " + received.detail();
            } else {
                verdict = Verdict.INCONCLUSIVE;
                observed = "accepts M=1; then " + describe(received);
            }
            add("markers", "MPA-R-015", verdict, observed, expected, facts, c.elapsedMillis());
        }
    }

    /** PD_Length 512 (the maximum): the RFC 6581 word and 508 octets when enhanced, else 512 octets. */
    private MpaStartupFrame fullPrivateData() {
        byte[] ulp = new byte[enhanced ? 508 : 512];
        Arrays.fill(ulp, (byte) 'p');
        return enhanced ? MpaStartupFrame.request(false, useCrc, 2, clientServer(), ulp)
                : MpaStartupFrame.request(false, useCrc, 1, null, ulp);
    }

    private void privateData512() throws IOException {
        try (ScriptedConnection c = open()) {
            c.sendRaw(ScriptedConnection.encode(fullPrivateData()));
            StartupAnswer answer = c.readReply();
            Verdict verdict = accepted(answer) ? Verdict.PASS
                    : answer.outcome() == Outcome.TIMEOUT ? Verdict.INCONCLUSIVE : Verdict.FAIL;
            add("private-data-512", "MPA-R-052", verdict, describe(answer),
                    "accepts a Request with PD_Length 512", replyFacts(answer), c.elapsedMillis());
        }
    }

    private void privateData513() throws IOException {
        byte[] frame = ScriptedConnection.encode(fullPrivateData());
        byte[] tooLong = Arrays.copyOf(frame, frame.length + 1);
        tooLong[tooLong.length - 1] = 'p';
        tooLong[18] = (byte) (513 >>> 8);
        tooLong[19] = (byte) 513;
        try (ScriptedConnection c = open()) {
            c.sendRaw(tooLong);
            StartupAnswer answer = c.readReply();
            Verdict verdict;
            if (answer.outcome() == Outcome.CLOSED) {
                verdict = Verdict.PASS;
            } else if (answer.outcome() == Outcome.RECEIVED) {
                verdict = answer.reply().reject() ? Verdict.WARN : Verdict.FAIL;
            } else {
                verdict = Verdict.INCONCLUSIVE;
            }
            add("private-data-513", "MPA-R-051", verdict, describe(answer),
                    "closes the connection: PD_Length above 512 makes the Request invalid", replyFacts(answer),
                    c.elapsedMillis());
        }
    }

    private void peerToPeer() throws IOException {
        if (!enhanced) {
            for (String p : List.of("control-flag-a-echo", "rtr-options", "ird-ord")) {
                add(p, p.equals("ird-ord") ? "MPA2-R-005" : "MPA2-R-008", Verdict.INCONCLUSIVE,
                        "the peer does not accept enhanced Requests", "", Map.of(), 0);
            }
            return;
        }
        EnhancedConnectionData offer = new EnhancedConnectionData(true, EnumSet.allOf(RtrType.class), OUR_IRD, OUR_ORD);
        try (ScriptedConnection c = open()) {
            c.sendRaw(ScriptedConnection.encode(MpaStartupFrame.request(false, useCrc, 2, offer, new byte[0])));
            StartupAnswer answer = c.readReply();
            Map<String, Object> facts = replyFacts(answer);
            if (!accepted(answer) || !answer.reply().enhanced()) {
                Verdict v = answer.outcome() == Outcome.TIMEOUT ? Verdict.INCONCLUSIVE : Verdict.FAIL;
                add("control-flag-a-echo", "MPA2-R-008", v, "peer-to-peer Request: " + describe(answer),
                        "the Reply echoes A=1", facts, c.elapsedMillis());
                return;
            }
            EnhancedConnectionData word = answer.reply().enhancedData();
            add("control-flag-a-echo", "MPA2-R-008", word.peerToPeer() ? Verdict.PASS : Verdict.FAIL,
                    "Request A=1 RTR {send,write,read}; Reply " + word(word), "the Reply echoes A=1", facts,
                    c.elapsedMillis());
            if (word.peerToPeer()) {
                add("rtr-options", "MPA2-R-008", word.rtrTypes().isEmpty() ? Verdict.FAIL : Verdict.PASS,
                        "the Reply names {" + rtrNames(word.rtrTypes()) + "}",
                        "at least one RTR option in a peer-to-peer Reply",
                        Map.of("reply_rtr", rtrNames(word.rtrTypes())), 0);
            }
            boolean noNegotiation = word.ord() == MpaConstants.IRD_ORD_NO_NEGOTIATION;
            boolean ordOk = noNegotiation || word.ord() <= OUR_IRD;
            add("ird-ord", "MPA2-R-005", ordOk ? Verdict.PASS : Verdict.FAIL,
                    "we offered IRD " + OUR_IRD + " ORD " + OUR_ORD + "; granted IRD " + word.ird() + " ORD "
                            + word.ord(),
                    "the Responder's ORD is at most our IRD", Map.of("reply_ird", word.ird(), "reply_ord", word.ord()),
                    0);
            c.fullOperation(useCrc || answer.reply().crc(), answer.reply().markers(), false);
            if (word.peerToPeer() && !word.rtrTypes().isEmpty()) {
                // A well-behaved Initiator sends the RTR before it goes (MPA2-R-009).
                settle(c, answer.reply(), preferred(word.rtrTypes()));
            }
        }
    }

    /**
     * Sends the RTR and, before the connection is closed, waits (bounded) for the answer to a
     * zero-length Read (the Read RTR's own answer does): closing right behind the RTR was seen to
     * leave Linux rping -P on siw without any event for that connection, after which it accepted
     * no other. Nothing is judged here.
     */
    private void settle(ScriptedConnection c, MpaStartupFrame reply, RtrType rtr) throws IOException {
        sendRtr(c, rtr);
        if (rtr != RtrType.READ && mayRead(reply)) {
            ping(c, 1);
        }
        if (rtr == RtrType.READ || mayRead(reply)) {
            answer(c, new LinkedHashMap<>());
        }
    }

    /** Write if the Reply allows it, else Read, else Send. */
    private static RtrType preferred(Set<RtrType> allowed) {
        return allowed.contains(RtrType.WRITE) ? RtrType.WRITE : allowed.contains(RtrType.READ) ? RtrType.READ
                : RtrType.SEND;
    }

    /**
     * The RTR as RFC 6581 §9 has it: a zero-length Write with STag 0 and TO 0, a zero-length Read
     * Request with STags 0, or a zero-length Send (MSN 1).
     */
    private static void sendRtr(ScriptedConnection c, RtrType rtr) throws IOException {
        switch (rtr) {
            case WRITE -> c.send(Wire.write(0, 0, new byte[0]));
            case READ -> c.send(Wire.readRequest(1, new ReadRequestHeader(0, 0, 0, 0, 0)));
            default -> c.send(Wire.zeroLengthSend(1));
        }
    }

    private void rtr(RtrType rtr) throws IOException {
        String probe = "rtr-" + rtr.name().toLowerCase(java.util.Locale.ROOT);
        String expected = "a peer that names this RTR in its Reply takes it: no Terminate, no delivery, "
                + "a Read RTR answered by a zero-length Read Response";
        if (!enhanced) {
            add(probe, "MPA2-R-012", Verdict.INCONCLUSIVE, "the peer does not accept enhanced Requests", expected,
                    Map.of(), 0);
            return;
        }
        EnhancedConnectionData offer = new EnhancedConnectionData(true, EnumSet.of(rtr), OUR_IRD, OUR_ORD);
        try (ScriptedConnection c = open()) {
            c.sendRaw(ScriptedConnection.encode(MpaStartupFrame.request(false, useCrc, 2, offer, new byte[0])));
            StartupAnswer answer = c.readReply();
            Map<String, Object> facts = replyFacts(answer);
            if (!accepted(answer) || !answer.reply().enhanced()) {
                add(probe, "MPA2-R-012", answer.outcome() == Outcome.TIMEOUT ? Verdict.INCONCLUSIVE : Verdict.INFO,
                        "not accepted: " + describe(answer), expected, facts, c.elapsedMillis());
                return;
            }
            EnhancedConnectionData word = answer.reply().enhancedData();
            c.fullOperation(useCrc || answer.reply().crc(), answer.reply().markers(), false);
            if (!word.peerToPeer() || !word.rtrTypes().contains(rtr)) {
                if (word.peerToPeer() && !word.rtrTypes().isEmpty()) {
                    // Not the one we offered, but one we can send: MPA2-R-010 lets us use it, and
                    // the peer's application sees a normal connection (a Terminate with LLP code 7
                    // instead leaves Linux rping -P waiting for that connection for good).
                    settle(c, answer.reply(), preferred(word.rtrTypes()));
                }
                add(probe, "MPA2-R-012", Verdict.INFO, "not supported: offered alone, the Reply names "
                        + (word.peerToPeer() ? "{" + rtrNames(word.rtrTypes()) + "}" : "A=0"), expected, facts,
                        c.elapsedMillis());
                return;
            }
            sendRtr(c, rtr);
            Received received;
            int nextRead = 1;
            if (rtr == RtrType.READ) {
                nextRead = 2;
                received = answer(c, facts);
                facts.put("answer_to_rtr", describe(received));
                if (received.outcome() != Outcome.RECEIVED || !Wire.parse(received.ulpdu()).isEmptyReadResponse()) {
                    add(probe, "MPA2-R-012", verdictForUnexpected(received), "named in the Reply, but the Read RTR got: "
                            + describe(received), expected, facts, c.elapsedMillis());
                    return;
                }
            }
            if (!mayRead(answer.reply())) {
                add(probe, "MPA2-R-012", rtr == RtrType.READ ? Verdict.PASS : Verdict.INCONCLUSIVE,
                        "named in the Reply and sent; IRD 0, so no zero-length Read to show the connection still works",
                        expected, facts, c.elapsedMillis());
                return;
            }
            ping(c, nextRead);
            received = answer(c, facts);
            facts.put("answer_to_read", describe(received));
            boolean alive = received.outcome() == Outcome.RECEIVED && Wire.parse(received.ulpdu()).isEmptyReadResponse();
            add(probe, "MPA2-R-012", alive ? Verdict.PASS : verdictForUnexpected(received),
                    alive ? "accepted: named in the Reply; after the RTR a zero-length Read was answered"
                            : "named in the Reply, but after the RTR: " + describe(received),
                    expected, facts, c.elapsedMillis());
        }
    }

    /** A Terminate, a close or garbage where a conformant peer answers is a failure; silence is inconclusive. */
    private static Verdict verdictForUnexpected(Received received) {
        return received.outcome() == Outcome.TIMEOUT ? Verdict.INCONCLUSIVE : Verdict.FAIL;
    }

    private void fpduBeforeReply() throws IOException {
        MpaStartupFrame request = plainRequest();
        String expected = "RFC 5044 has the Initiator wait for the Reply; what a Responder does with an early FPDU is open";
        try (ScriptedConnection c = open()) {
            c.fullOperation(useCrc, false, false);
            byte[] early = c.frame(Wire.readRequest(1, PING));
            byte[] req = ScriptedConnection.encode(request);
            byte[] both = Arrays.copyOf(req, req.length + early.length);
            System.arraycopy(early, 0, both, req.length, early.length);
            c.sendRaw(both);  // one write: the early FPDU arrives with the Request
            StartupAnswer answer = c.readReply();
            Map<String, Object> facts = replyFacts(answer);
            String observed;
            if (!accepted(answer)) {
                observed = describe(answer);
            } else if (answer.reply().markers()) {
                observed = "accepted (Reply asks for markers, not followed further)";
            } else {
                Received received = c.next(timeout);
                facts.put("answer", describe(received));
                observed = switch (received.outcome()) {
                    case RECEIVED -> {
                        Wire.Message m = Wire.parse(received.ulpdu());
                        yield m.isEmptyReadResponse() ? "Reply, then took the early zero-length Read as the first FPDU"
                                + " and answered it" : "Reply, then " + describe(received);
                    }
                    case TIMEOUT -> "Reply, then nothing: the early FPDU was ignored or is still pending";
                    case CLOSED -> "Reply, then the connection " + received.detail();
                    default -> "Reply, then " + describe(received);
                };
            }
            add("fpdu-before-reply", "MPA-R-054", Verdict.INFO, observed, expected, facts, c.elapsedMillis());
        }
    }

    private void writeToInvalidStag() throws IOException {
        String expected = "Terminate DDP 1/1/00 (tagged buffer, invalid STag) with D=1 echoing our segment length"
                + " and DDP header";
        try (ScriptedConnection c = open()) {
            c.sendRaw(ScriptedConnection.encode(plainRequest()));
            StartupAnswer answer = c.readReply();
            if (!accepted(answer)) {
                add("terminate-write-invalid-stag", "DDP-R-049", Verdict.INCONCLUSIVE, "no connection: "
                        + describe(answer), expected, replyFacts(answer), c.elapsedMillis());
                return;
            }
            c.fullOperation(useCrc || answer.reply().crc(), answer.reply().markers(), false);
            ByteBuf write = Wire.write(BOGUS_STAG, 0, SIXTEEN);
            byte[] sent = io.netty.buffer.ByteBufUtil.getBytes(write);
            c.send(write);
            judgeTerminate(c, "terminate-write-invalid-stag", "DDP-R-049", expected, sent,
                    Set.of(TerminateReason.DDP_TAGGED_INVALID_STAG, TerminateReason.DDP_TAGGED_STAG_NOT_ASSOCIATED),
                    null);
        }
    }

    private void readFromInvalidStag() throws IOException {
        String expected = "Terminate RDMAP 0/1/00 (remote protection, invalid STag) with D=1 and R=1 echoing our"
                + " DDP header and Read Request header";
        try (ScriptedConnection c = open()) {
            c.sendRaw(ScriptedConnection.encode(plainRequest()));
            StartupAnswer answer = c.readReply();
            if (!accepted(answer) || !mayRead(answer.reply())) {
                add("terminate-read-invalid-stag", "RDMAP-R-014", Verdict.INCONCLUSIVE, accepted(answer)
                        ? "the peer granted IRD 0" : "no connection: " + describe(answer), expected,
                        replyFacts(answer), c.elapsedMillis());
                return;
            }
            c.fullOperation(useCrc || answer.reply().crc(), answer.reply().markers(), false);
            ReadRequestHeader header = new ReadRequestHeader(PING_SINK_STAG, 0, SIXTEEN.length, BOGUS_STAG, 0);
            ByteBuf read = Wire.readRequest(1, header);
            byte[] sent = io.netty.buffer.ByteBufUtil.getBytes(read);
            c.send(read);
            judgeTerminate(c, "terminate-read-invalid-stag", "RDMAP-R-014", expected, sent,
                    Set.of(TerminateReason.RDMAP_INVALID_STAG, TerminateReason.RDMAP_STAG_NOT_ASSOCIATED), header);
        }
    }

    /**
     * Waits for the Terminate our erroneous {@code sent} segment deserves and judges it twice.
     * First the content ({@code requirement}): the reason (one of {@code allowed}), the echoed
     * segment length and DDP header (RDMAP-R-026), for a Read Request the echoed Read Request
     * header. Then the layout ({@code probe}{@code -layout}, RDMAP-R-040): do M, D and R announce
     * exactly the octets that follow, with the reserved bits zero? Two Linux siw habits are named
     * where they explain what arrived: layer and type nibbles swapped, and M/D/R in the low bits
     * of the control field's third octet (the little-endian bit-field order of its {@code
     * struct iwarp_terminate}); in the latter case the headers are read as those bits announce
     * them, so that the content can still be judged.
     */
    private void judgeTerminate(ScriptedConnection c, String probe, String requirement, String expected, byte[] sent,
                                Set<TerminateReason> allowed, ReadRequestHeader readHeader) throws IOException {
        Map<String, Object> facts = new LinkedHashMap<>();
        Received received = answer(c, facts);
        facts.put("answer", describe(received));
        Wire.Message m = received.outcome() == Outcome.RECEIVED ? Wire.parse(received.ulpdu()) : null;
        if (m == null || m.terminate() == null) {
            // RDMAP-R-036: an error on an incoming Write or Read Request is reported with a Terminate.
            add(probe, requirement, Verdict.FAIL, "no Terminate: " + describe(received), expected, facts, c.elapsedMillis());
            return;
        }
        TerminateMessage t = m.terminate();
        TerminateReason reason = t.reason();
        facts.put("layer", reason.layerCode());
        facts.put("error_type", reason.errorType());
        facts.put("error_code", reason.errorCode());
        facts.put("flag_m", t.segmentLengthValid());
        facts.put("flag_d", t.ddpHeaderIncluded());
        facts.put("flag_r", t.rdmaHeaderIncluded());
        facts.put("control_word", String.format("0x%08x", t.controlWord()));
        // Octets of the Terminate header, control field included: echoed headers, announced by D and R or not.
        facts.put("terminate_length", m.payloadLength());

        // Layout (RDMAP-R-040): what M, D, R announce against what follows.
        int follows = m.payloadLength() - 4;
        int announced = (t.ddpHeaderIncluded() ? 2 + (t.terminatedDdpHeader() == null ? 0
                : t.terminatedDdpHeader().length) : 0) + (t.terminatedRdmaHeader() != null ? 28 : 0);
        boolean layoutOk = follows == announced && t.reservedBits() == 0 && t.isComplete();
        int lowBits = t.reservedBits() >>> 8 & 0x07;  // bit 0 M, bit 1 D, bit 2 R in siw's layout
        boolean siwFlags = !t.ddpHeaderIncluded() && !t.rdmaHeaderIncluded() && (lowBits & 0x02) != 0
                && (t.reservedBits() & ~0x0700) == 0;
        TerminateMessage content = t;
        if (siwFlags) {
            byte[] fixed = Arrays.copyOfRange(received.ulpdu(), 18, received.ulpdu().length);
            fixed[2] = (byte) (((lowBits & 1) != 0 ? 0x80 : 0) | 0x40 | ((lowBits & 4) != 0 ? 0x20 : 0));
            content = TerminateMessage.decode(io.netty.buffer.Unpooled.wrappedBuffer(fixed));
        }
        facts.put("siw_flag_layout", siwFlags);
        String layoutObserved = layoutOk ? "M=" + bit(t.segmentLengthValid()) + " D=" + bit(t.ddpHeaderIncluded())
                + " R=" + bit(t.rdmaHeaderIncluded()) + " announce the " + follows + " octets that follow"
                : "M=" + bit(t.segmentLengthValid()) + " D=" + bit(t.ddpHeaderIncluded()) + " R="
                + bit(t.rdmaHeaderIncluded()) + " announce " + announced + " octets, " + follows + " follow"
                + (t.reservedBits() != 0 ? String.format(", reserved bits 0x%04x", t.reservedBits()) : "")
                + (siwFlags ? "; looks like siw's little-endian bit-fields: M/D/R in the low bits of octet 2" : "");
        Map<String, Object> layoutFacts = new LinkedHashMap<>();
        layoutFacts.put("control_word", String.format("0x%08x", t.controlWord()));
        layoutFacts.put("terminate_length", m.payloadLength());
        layoutFacts.put("siw_flag_layout", siwFlags);

        byte[] echoedDdp = content.terminatedDdpHeader();
        boolean ddpEchoed = echoedDdp != null && Arrays.equals(echoedDdp, Wire.ddpHeaderOf(sent));
        boolean lengthEchoed = content.ddpSegmentLength() == sent.length;
        facts.put("ddp_header_echoed", ddpEchoed);
        if (echoedDdp != null && !ddpEchoed) {
            facts.put("echoed_ddp_header", io.netty.buffer.ByteBufUtil.hexDump(echoedDdp));
            facts.put("sent_ddp_header", io.netty.buffer.ByteBufUtil.hexDump(Wire.ddpHeaderOf(sent)));
        }
        facts.put("segment_length", content.ddpSegmentLength());
        boolean rdmaEchoed = readHeader == null || readHeader.equals(content.terminatedRdmaHeader());
        if (readHeader != null) {
            facts.put("read_request_header_echoed", rdmaEchoed);
        }
        String observed = "Terminate " + reasonText(reason) + (t.ddpHeaderIncluded() ? ", D=1" : ", D=0")
                + (t.rdmaHeaderIncluded() ? " R=1" : "") + (siwFlags ? " (D set in siw's layout)" : "")
                + (ddpEchoed ? ", our DDP header copied back" : "")
                + (readHeader != null && rdmaEchoed ? ", our Read Request header copied back" : "");
        Verdict verdict;
        if (!allowed.contains(reason)) {
            TerminateReason swapped = TerminateReason.of(reason.errorType(), reason.layerCode(), reason.errorCode());
            boolean siwSwap = allowed.contains(swapped);
            facts.put("swapped_layer_type", siwSwap);
            verdict = Verdict.FAIL;
            observed += siwSwap ? "; looks like siw's swapped layer/type nibbles: read the other way it is "
                    + reasonText(swapped) : "";
        } else if (!ddpEchoed || !lengthEchoed || !rdmaEchoed) {
            verdict = Verdict.WARN;
            observed += "; the headers are not all copied back" + (lengthEchoed ? "" : " (segment length "
                    + content.ddpSegmentLength() + ", ours " + sent.length + ")");
        } else {
            verdict = Verdict.PASS;
        }
        long closed = c.awaitClose(Duration.ofMillis(Math.min(1000, timeout.toMillis())));
        facts.put("closed_after_terminate", closed >= 0);
        add(probe, requirement, verdict, observed, expected, facts, c.elapsedMillis());
        add(probe + "-layout", "RDMAP-R-040", layoutOk ? Verdict.PASS : Verdict.FAIL, layoutObserved,
                "M, D and R announce exactly the echoed fields that follow; reserved bits zero", layoutFacts, 0);
    }

    private static String bit(boolean b) {
        return b ? "1" : "0";
    }

    private void zeroLengthWriteBogusStag() throws IOException {
        String expected = "no error: a zero-length tagged segment's STag and TO are not checked";
        try (ScriptedConnection c = open()) {
            c.sendRaw(ScriptedConnection.encode(plainRequest()));
            StartupAnswer answer = c.readReply();
            if (!accepted(answer) || !mayRead(answer.reply())) {
                add("zero-length-write-bogus-stag", "DDP-R-031", Verdict.INCONCLUSIVE, accepted(answer)
                        ? "the peer granted IRD 0: no zero-length Read to show the connection survived"
                        : "no connection: " + describe(answer), expected, replyFacts(answer), c.elapsedMillis());
                return;
            }
            c.fullOperation(useCrc || answer.reply().crc(), answer.reply().markers(), false);
            c.send(Wire.write(BOGUS_STAG, 0xFFFF_FFFF_FFFF_FFF0L, new byte[0]));
            ping(c, 1);
            Map<String, Object> facts = new LinkedHashMap<>();
            Received received = answer(c, facts);
            facts.put("answer", describe(received));
            boolean alive = received.outcome() == Outcome.RECEIVED && Wire.parse(received.ulpdu()).isEmptyReadResponse();
            add("zero-length-write-bogus-stag", "DDP-R-031", alive ? Verdict.PASS : verdictForUnexpected(received),
                    alive ? "ignored: the zero-length Read that followed was answered"
                            : "after the zero-length Write: " + describe(received), expected, facts, c.elapsedMillis());
        }
    }

    private void startupTimeout() throws IOException {
        String expected = "the Responder gives up on a connection that sends no Request (a SHOULD)";
        connections++;
        try (ScriptedConnection c = ScriptedConnection.open(target, startupWait.plus(timeout))) {
            long waited = c.awaitClose(startupWait);
            // Counted from before our connect, not from the wait: the peer's startup clock starts
            // when it has the connection, which may be before this thread came back from connect.
            long closedAfter = waited >= 0 ? c.elapsedMillis() : -1;
            Map<String, Object> facts = new LinkedHashMap<>();
            facts.put("waited_millis", waited >= 0 ? waited : startupWait.toMillis());
            facts.put("closed_after_millis", closedAfter);
            add("startup-timeout", "MPA-R-067", closedAfter >= 0 ? Verdict.PASS : Verdict.WARN,
                    closedAfter >= 0 ? "closed the silent connection after " + closedAfter + " ms (" + c.closedHow() + ")"
                            : "still open after " + startupWait.toMillis() + " ms (we stopped waiting there)",
                    expected, facts, c.elapsedMillis());
        }
    }
}
