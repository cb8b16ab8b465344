package org.iwarp4j.conformance.probe.internal;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import org.iwarp4j.conformance.probe.Observation;
import org.iwarp4j.conformance.probe.Verdict;
import org.iwarp4j.conformance.probe.internal.ScriptedConnection.Outcome;
import org.iwarp4j.conformance.probe.internal.ScriptedConnection.Received;
import org.iwarp4j.conformance.probe.internal.ScriptedConnection.StartupAnswer;
import org.iwarp4j.mpa.EnhancedConnectionData;
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
 *
 * <p>Every documented observation is in the result whatever the peer does: one that a probe
 * could not make (the connection failed, the peer refused what it needed) is there as
 * inconclusive, saying why ({@link #guard}).
 */
public final class ProbeRunner {

    /** The IRD and ORD we offer: small, so that a peer's grant shows whether it negotiates. */
    static final int OUR_IRD = 4;
    static final int OUR_ORD = 4;
    /** An STag no peer should have handed out (index 0xDEADBE, key 0x00). */
    static final int BOGUS_STAG = 0xDEADBE00;
    /** The sink STag of our zero-length Reads; never checked by the peer (RFC 5040 §5.2.1), echoed in its Read Response. */
    static final int PING_SINK_STAG = 1;
    /** The sink STag of the Read RTR (RFC 6581 §9: STags 0). */
    static final int RTR_SINK_STAG = 0;
    /**
     * Our liveness check: a zero-length Read Request, sink and source STag 1 as Linux siw's Read
     * RTR has them; RFC 5040 §5.2.1 says neither is checked and one zero-length Read Response answers it.
     */
    static final ReadRequestHeader PING = new ReadRequestHeader(PING_SINK_STAG, 0, 0, 1, 0);
    static final byte[] SIXTEEN = "iwarp4j probe 16".getBytes(java.nio.charset.StandardCharsets.US_ASCII);
    /**
     * How many of the peer's own Sends one wait passes over: MPA-R-061 lets a Responder send once
     * our first FPDU arrived, and its ULP's message is not the answer a probe waits for; bounded,
     * so that a peer that sends without end cannot hold a probe beyond its timeout's reach.
     */
    static final int MAX_SKIPPED_SENDS = 8;

    private final InetSocketAddress target;
    private final Duration timeout;
    private final Duration startupWait;
    private final List<Observation> observations = new ArrayList<>();
    private int connections;
    private int connected;
    private int replies;
    /** Whether the peer answers an enhanced (RFC 6581) Request with an enhanced Reply; later probes use it if so. */
    private boolean enhanced;
    /** The C bit of later Requests: 1 unless the peer did not take it and took C=0. */
    private boolean useCrc = true;
    /** crc-honoured as judged on the mpa-revision-2 connection, or null when it was not accepted. */
    private Observation crcHonoured;
    /** Whether the PD_Length 512 Request was accepted: only then does a close of 513 say anything. */
    private boolean accepted512;

    public ProbeRunner(InetSocketAddress target, Duration timeout, Duration startupWait) {
        this.target = target;
        this.timeout = timeout;
        this.startupWait = startupWait;
    }

    /** Connections tried so far. */
    public int connections() {
        return connections;
    }

    /** Connections whose TCP connect succeeded. */
    public int connected() {
        return connected;
    }

    /** MPA Replies received (whole and well formed), over all connections. */
    public int replies() {
        return replies;
    }

    /** A probe's observation name and the requirement it is judged under unless it says otherwise. */
    private record Expect(String probe, String requirement) {
    }

    private static Expect expect(String probe, String requirement) {
        return new Expect(probe, requirement);
    }

    /** Runs every probe; the observations in the order of {@code docs/probe.md}. */
    public List<Observation> run() {
        guard(this::revision2, expect("mpa-revision-2", "MPA2-R-003"), expect("client-server-a-clear", "MPA2-R-019"));
        guard(this::crcRequired, expect("crc-honoured", "MPA-R-026"), expect("crc-required", "MPA-R-023"));
        guard(this::revision1, expect("mpa-revision-1", "MPA2-R-014"));
        guard(this::markers, expect("markers", "MPA-R-015"));
        guard(this::privateData512, expect("private-data-512", "MPA-R-052"));
        guard(this::privateData513, expect("private-data-513", "MPA-R-051"));
        guard(this::peerToPeer, expect("control-flag-a-echo", "MPA2-R-008"), expect("rtr-options", "MPA2-R-008"),
                expect("ird-ord", "MPA2-R-005"));
        for (RtrType rtr : RtrType.values()) {
            guard(() -> rtr(rtr), expect(rtrProbe(rtr), "MPA2-R-012"));
        }
        guard(this::fpduBeforeReply, expect("fpdu-before-reply", "MPA-R-054"));
        guard(this::writeToInvalidStag, expect("terminate-write-invalid-stag", "DDP-R-049"),
                expect("terminate-write-invalid-stag-layout", "RDMAP-R-040"));
        guard(this::readFromInvalidStag, expect("terminate-read-invalid-stag", "RDMAP-R-014"),
                expect("terminate-read-invalid-stag-layout", "RDMAP-R-040"));
        guard(this::zeroLengthWriteBogusStag, expect("zero-length-write-bogus-stag", "DDP-R-031"));
        guard(this::startupTimeout, expect("startup-timeout", "MPA-R-067"));
        return List.copyOf(observations);
    }

    private static String rtrProbe(RtrType rtr) {
        return "rtr-" + rtr.name().toLowerCase(Locale.ROOT);
    }

    private interface Step {
        void run() throws IOException;
    }

    /** A TCP connect that failed: the only failure that means "could not probe" rather than "the peer did this". */
    private static final class CannotConnect extends IOException {
        CannotConnect(IOException cause) {
            super(words(cause), cause);
        }
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

    /**
     * Runs one probe step and puts its observations in the order {@code expected} names them,
     * adding each one the step did not make as inconclusive: the report then always has every
     * documented observation ({@code ProbeReport.observation(name)} finds it), and a step that
     * stopped half-way (a connect that failed, octets our decoders could not take apart) costs
     * only its own observations, not the next probe's.
     */
    private void guard(Step step, Expect... expected) {
        int before = observations.size();
        String why = "not observed: the probe ended before it";
        try {
            step.run();
        } catch (CannotConnect e) {
            why = "connection failed: " + e.getMessage();
        } catch (IOException e) {
            why = "connection broke: " + words(e);
        } catch (RuntimeException e) {
            why = "probe failed: " + e;
        }
        List<Observation> made = new ArrayList<>(observations.subList(before, observations.size()));
        observations.subList(before, observations.size()).clear();
        for (Expect x : expected) {
            boolean found = false;
            for (Observation o : made) {
                if (o.probe().equals(x.probe())) {
                    observations.add(o);
                    found = true;
                }
            }
            if (!found) {
                add(x.probe(), x.requirement(), Verdict.INCONCLUSIVE, why, "", facts(), 0);
            }
        }
        for (Observation o : made) {
            if (Arrays.stream(expected).noneMatch(x -> x.probe().equals(o.probe()))) {
                observations.add(o);  // not declared: kept rather than lost (a mistake of ours, seen in the report)
            }
        }
    }

    private void add(String probe, String requirement, Verdict verdict, String observed, String expected,
                     Map<String, Object> facts, long millis) {
        observations.add(new Observation(probe, requirement, verdict, observed, expected, facts, millis));
    }

    /** Facts in the order given: names and values alternating (Observation promises a fixed order). */
    private static Map<String, Object> facts(Object... namesAndValues) {
        Map<String, Object> facts = new LinkedHashMap<>();
        for (int i = 0; i < namesAndValues.length; i += 2) {
            facts.put((String) namesAndValues[i], namesAndValues[i + 1]);
        }
        return facts;
    }

    private ScriptedConnection open() throws IOException {
        return open(timeout, timeout);
    }

    /** A new connection: the connect bounded by {@code connectLimit}, everything on it by {@code budget}. */
    private ScriptedConnection open(Duration connectLimit, Duration budget) throws IOException {
        connections++;
        ScriptedConnection c;
        try {
            c = ScriptedConnection.open(target, connectLimit, budget);
        } catch (IOException e) {
            throw new CannotConnect(e);
        }
        connected++;
        return c;
    }

    /** The peer's startup frame, counted when it is a Reply. */
    private StartupAnswer readReply(ScriptedConnection c) throws IOException {
        StartupAnswer answer = c.readReply();
        if (answer.outcome() == Outcome.RECEIVED) {
            replies++;
        }
        return answer;
    }

    private static EnhancedConnectionData clientServer() {
        return new EnhancedConnectionData(false, Set.of(), OUR_IRD, OUR_ORD);
    }

    /** An accepting Request as later probes use it: enhanced if the peer takes that, no markers, the C bit given. */
    private MpaStartupFrame plainRequest(boolean crc) {
        return enhanced ? MpaStartupFrame.request(false, crc, 2, clientServer(), new byte[0])
                : MpaStartupFrame.request(false, crc, 1, null, new byte[0]);
    }

    private MpaStartupFrame plainRequest() {
        return plainRequest(useCrc);
    }

    private static Map<String, Object> replyFacts(StartupAnswer answer) {
        Map<String, Object> facts = new LinkedHashMap<>();
        facts.put("reply", answer.outcome().name().toLowerCase(Locale.ROOT));
        MpaStartupFrame reply = answer.reply();
        if (reply != null) {
            facts.put("reply_revision", reply.revision());
            // Octet 16 as it arrived: below revision 2 the S bit is a reserved bit the frame object drops.
            facts.put("reply_flags", String.format("0x%02x", answer.flagsOctet()));
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
            names.append(names.length() == 0 ? "" : ",").append(t.name().toLowerCase(Locale.ROOT));
        }
        return names.toString();
    }

    private static boolean accepted(StartupAnswer answer) {
        return answer.outcome() == Outcome.RECEIVED && !answer.reply().reject();
    }

    private static boolean rejected(StartupAnswer answer) {
        return answer.outcome() == Outcome.RECEIVED && answer.reply().reject();
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
                return answer.detail();
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
    private static void ping(ScriptedConnection c, int msn) {
        c.send(Wire.readRequest(msn, PING));
    }

    /** Sends a zero-length Read (MSN 1) and waits for the answer, which goes into {@code facts} as {@code answer}. */
    private Received pingAnswer(ScriptedConnection c, Map<String, Object> facts) throws IOException {
        ping(c, 1);
        Received received = answer(c, facts);
        facts.put("answer", describe(received));
        return received;
    }

    /** Whether {@code received} is the zero-length Read Response to a Read Request with this sink STag. */
    private static boolean isEmptyReadResponseTo(Received received, int sinkStag) {
        return received.outcome() == Outcome.RECEIVED && Wire.parse(received.ulpdu()).isEmptyReadResponseTo(sinkStag);
    }

    /** How long we wait for an answer to our first FPDUs before sending a wake-up Write. */
    static final Duration WAKE_UP_AFTER = Duration.ofSeconds(1);

    /**
     * The peer's answer to what we just sent, passing over up to {@link #MAX_SKIPPED_SENDS} of its
     * own Sends (fact {@code peer_sends_skipped}). If nothing comes within {@link #WAKE_UP_AFTER},
     * one zero-length Write (STag 1, TO 0: never checked, never delivered, DDP-R-031) goes out and
     * we wait for the rest of the timeout: Linux siw 6.1 as Responder can leave an FPDU that
     * arrived right after its Reply unread until more data comes (docs/siw-interop.md), and a probe
     * must not mistake that for silence. {@code facts} gets {@code wake_up_write} when one was sent.
     */
    private Received answer(ScriptedConnection c, Map<String, Object> facts) throws IOException {
        boolean wakeUp = WAKE_UP_AFTER.compareTo(timeout) < 0;
        Received first = nextNotSend(c, wakeUp ? WAKE_UP_AFTER : timeout, facts);
        if (first.outcome() != Outcome.TIMEOUT || !wakeUp) {
            return first;
        }
        facts.put("wake_up_write", true);
        c.send(Wire.write(1, 0, new byte[0]));
        return nextNotSend(c, timeout.minus(WAKE_UP_AFTER), facts);
    }

    private static Received nextNotSend(ScriptedConnection c, Duration max, Map<String, Object> facts)
            throws IOException {
        long until = System.nanoTime() + max.toNanos();
        while (true) {
            Received r = c.next(Duration.ofNanos(until - System.nanoTime()));
            int skipped = (Integer) facts.getOrDefault("peer_sends_skipped", 0);
            if (r.outcome() != Outcome.RECEIVED || skipped >= MAX_SKIPPED_SENDS || !Wire.parse(r.ulpdu()).isSend()) {
                return r;
            }
            facts.put("peer_sends_skipped", skipped + 1);
        }
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
        return m.opcode().name().toLowerCase(Locale.ROOT).replace('_', ' ')
                + " of " + m.payloadLength() + " octets";
    }

    private static String reasonText(TerminateReason reason) {
        return String.format("%x/%x/%02x (%s)", reason.layerCode(), reason.errorType(), reason.errorCode(),
                reason.description());
    }

    // ---- the probes ----

    /**
     * An enhanced Request (rev 2, S=1, C=1). RFC 6581 §10: an enhanced Responder answers with an
     * enhanced Reply (MPA2-R-003), even one with R=1 — that is judged by its S bit and word, its
     * refusal by the probes that follow; a Responder that does not do the enhanced mode closes
     * the connection, which is its rule and not a failure (info; MPA2-R-004 lets us go on with
     * revision 1). A revision 1 Reply to it is neither (fail).
     */
    private void revision2() throws IOException {
        MpaStartupFrame request = MpaStartupFrame.request(false, true, 2, clientServer(), new byte[0]);
        try (ScriptedConnection c = open()) {
            c.sendRaw(ScriptedConnection.encode(request));
            StartupAnswer answer = readReply(c);
            Map<String, Object> facts = replyFacts(answer);
            MpaStartupFrame reply = answer.reply();
            String expected = "an enhanced Reply: rev 2, S=1, the IRD/ORD word (an RFC 5044-only Responder closes instead)";
            boolean enhancedReply = reply != null && reply.revision() == 2 && reply.enhanced();
            Verdict verdict;
            String observed = describe(answer);
            switch (answer.outcome()) {
                case TIMEOUT -> verdict = Verdict.INCONCLUSIVE;
                case CLOSED -> {
                    verdict = Verdict.INFO;
                    observed += " (as an RFC 5044-only Responder does, RFC 6581 §10: later probes use rev 1)";
                }
                case MALFORMED -> verdict = Verdict.FAIL;
                default -> {
                    verdict = enhancedReply ? Verdict.PASS : Verdict.FAIL;
                    observed += enhancedReply ? (reply.reject() ? " (an enhanced Reply all the same)" : "")
                            : " (answered as an RFC 5044 Responder)";
                }
            }
            enhanced = enhancedReply;
            add("mpa-revision-2", "MPA2-R-003", verdict, observed, expected, facts, c.elapsedMillis());
            if (enhancedReply) {
                EnhancedConnectionData word = reply.enhancedData();
                boolean clear = !word.peerToPeer() && word.rtrTypes().isEmpty();
                add("client-server-a-clear", "MPA2-R-019", clear ? Verdict.PASS : Verdict.FAIL,
                        "Request A=0; Reply " + word(word), "A=0 and no RTR bits in the Reply",
                        facts("reply_peer_to_peer", word.peerToPeer(), "reply_rtr", rtrNames(word.rtrTypes())), 0);
            } else {
                add("client-server-a-clear", "MPA2-R-019", Verdict.INCONCLUSIVE, "no enhanced Reply to read A from",
                        "A=0 and no RTR bits in the Reply", facts(), 0);
            }
            if (accepted(answer)) {
                crcHonoured = crcOn(c, request, reply, 0);
            }
        }
    }

    /**
     * crc-honoured on a connection whose Request had C=1: the peer must generate CRCs (MPA-R-026,
     * MPA-R-047), and its answer to a zero-length Read shows whether it does.
     */
    private Observation crcOn(ScriptedConnection c, MpaStartupFrame request, MpaStartupFrame reply, long millis)
            throws IOException {
        c.fullOperation(true, reply.markers(), false);
        String expected = "the peer's FPDUs carry a correct CRC32c (our Request had C=1)";
        Map<String, Object> facts = facts("request_revision", request.revision());
        if (!mayRead(reply)) {
            return new Observation("crc-honoured", "MPA-R-026", Verdict.INCONCLUSIVE,
                    "the peer granted IRD 0: no Read to answer", expected, facts, millis);
        }
        Received answerToPing = pingAnswer(c, facts);
        Verdict verdict;
        String observed;
        if (answerToPing.outcome() == Outcome.MALFORMED) {
            verdict = Verdict.FAIL;
            observed = "its FPDU failed our CRC check: " + answerToPing.detail();
        } else if (answerToPing.outcome() == Outcome.RECEIVED) {
            verdict = isEmptyReadResponseTo(answerToPing, PING_SINK_STAG) ? Verdict.PASS : Verdict.INCONCLUSIVE;
            observed = "its " + describe(answerToPing) + " carried a correct CRC32c";
        } else {
            verdict = Verdict.INCONCLUSIVE;
            observed = "no FPDU to check: " + describe(answerToPing);
        }
        return new Observation("crc-honoured", "MPA-R-026", verdict, observed, expected, facts, millis);
    }

    /**
     * A Request with C=0, as later probes send Requests (revision 1 if the peer closed on
     * revision 2): info only. If the C=1 Request of mpa-revision-2 was not accepted, the same
     * Request as this one but with C=1 is tried once more on a new connection: CRC support is a
     * MUST (MPA-R-023), so a refusal fails only when the peer takes C=0 and answers the very same
     * Request with C=1 by R=1 — a first connection lost, or a refusal of revision 2, is no
     * evidence against CRC; and if C=1 is taken there, crc-honoured is judged on it.
     */
    private void crcRequired() throws IOException {
        StartupAnswer answer;
        Observation required;
        try (ScriptedConnection c = open()) {
            c.sendRaw(ScriptedConnection.encode(plainRequest(false)));
            answer = readReply(c);
            String observed;
            if (accepted(answer)) {
                observed = answer.reply().crc() ? "requires CRC: answers C=1 to our C=0"
                        : "does not require CRC: answers C=0 to our C=0";
            } else {
                observed = "refuses a Request with C=0: " + describe(answer);
            }
            required = new Observation("crc-required", "MPA-R-023", answer.outcome() == Outcome.TIMEOUT
                    ? Verdict.INCONCLUSIVE : Verdict.INFO, observed,
                    "either: CRC may be required by configuration, or turned off when both ends ask",
                    replyFacts(answer), c.elapsedMillis());
        }
        if (crcHonoured == null) {
            crcHonoured = accepted(answer) ? crcRetried()
                    : new Observation("crc-honoured", "MPA-R-026", Verdict.INCONCLUSIVE,
                    "no Request accepted, C=1 or C=0", "the peer's FPDUs carry a correct CRC32c (our Request had C=1)",
                    facts(), 0);
        }
        observations.add(crcHonoured);
        observations.add(required);
    }

    /** The Request the C=0 one was, with C=1, on a new connection (see {@link #crcRequired}). */
    private Observation crcRetried() throws IOException {
        MpaStartupFrame request = plainRequest(true);
        try (ScriptedConnection c = open()) {
            c.sendRaw(ScriptedConnection.encode(request));
            StartupAnswer answer = readReply(c);
            if (accepted(answer)) {
                return crcOn(c, request, answer.reply(), c.elapsedMillis());
            }
            // C=0 gets through where C=1 does not: later Requests go without it.
            useCrc = false;
            Map<String, Object> facts = replyFacts(answer);
            facts.put("request_revision", request.revision());
            if (rejected(answer)) {
                return new Observation("crc-honoured", "MPA-R-023", Verdict.FAIL,
                        "refuses our C=1 Request with R=1, accepts the same Request with C=0",
                        "every MPA implementation supports CRC", facts, c.elapsedMillis());
            }
            return new Observation("crc-honoured", "MPA-R-023", Verdict.INCONCLUSIVE,
                    "accepts C=0; the same Request with C=1: " + describe(answer) + " (no R=1 to show it is the CRC)",
                    "every MPA implementation supports CRC", facts, c.elapsedMillis());
        }
    }

    private void revision1() throws IOException {
        try (ScriptedConnection c = open()) {
            c.sendRaw(ScriptedConnection.encode(MpaStartupFrame.request(false, useCrc, 1, null, new byte[0])));
            StartupAnswer answer = readReply(c);
            boolean ok = accepted(answer) && answer.reply().revision() == 1 && !answer.reply().enhanced();
            add("mpa-revision-1", "MPA2-R-014", ok ? Verdict.PASS
                    : answer.outcome() == Outcome.TIMEOUT ? Verdict.INCONCLUSIVE : Verdict.FAIL,
                    describe(answer), "a plain RFC 5044 Reply: rev 1, R=0, no IRD/ORD word", replyFacts(answer),
                    c.elapsedMillis());
        }
    }

    private void markers() throws IOException {
        MpaStartupFrame request = enhanced ? MpaStartupFrame.request(true, useCrc, 2, clientServer(), new byte[0])
                : MpaStartupFrame.request(true, useCrc, 1, null, new byte[0]);
        String expected = "accepts M=1 and puts a marker every 512 octets of what it sends";
        try (ScriptedConnection c = open()) {
            c.sendRaw(ScriptedConnection.encode(request));
            StartupAnswer answer = readReply(c);
            Map<String, Object> facts = replyFacts(answer);
            if (answer.outcome() == Outcome.TIMEOUT) {
                add("markers", "MPA-R-015", Verdict.INCONCLUSIVE, describe(answer), expected, facts, c.elapsedMillis());
                return;
            }
            if (!accepted(answer)) {
                // MPA-R-015 is a MUST of every sender: unlike private data, markers are not the ULP's to refuse.
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
            Received received = pingAnswer(c, facts);
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

    /**
     * PD_Length 512 must be taken as a frame (MPA-R-052): a close without a Reply fails. Whether
     * the private data is acceptable is the ULP's to say, and RFC 5044 §7.1.2 rules 2 and 6 have it
     * say no with R=1: that is info.
     */
    private void privateData512() throws IOException {
        try (ScriptedConnection c = open()) {
            c.sendRaw(ScriptedConnection.encode(fullPrivateData()));
            StartupAnswer answer = readReply(c);
            accepted512 = accepted(answer);
            Verdict verdict = accepted512 ? Verdict.PASS : rejected(answer) ? Verdict.INFO
                    : answer.outcome() == Outcome.TIMEOUT ? Verdict.INCONCLUSIVE : Verdict.FAIL;
            add("private-data-512", "MPA-R-052", verdict, describe(answer) + (rejected(answer)
                    ? " (its ULP may refuse private data, RFC 5044 §7.1.2 rules 2 and 6)" : ""),
                    "accepts a Request with PD_Length 512 (R=1 if its ULP refuses the private data)", replyFacts(answer),
                    c.elapsedMillis());
        }
    }

    /**
     * PD_Length 513 makes the Request improperly formatted (RFC 5044 §7.1.1, §7.1.2 rule 9), and
     * rule 2 makes closing the connection a MUST (MPA-R-051): any Reply fails. A close passes only
     * if the 512-octet Request was accepted; otherwise the close may have nothing to do with the
     * length, and the probe cannot tell.
     */
    private void privateData513() throws IOException {
        byte[] frame = ScriptedConnection.encode(fullPrivateData());
        byte[] tooLong = Arrays.copyOf(frame, frame.length + 1);
        tooLong[tooLong.length - 1] = 'p';
        tooLong[18] = (byte) (513 >>> 8);
        tooLong[19] = (byte) 513;
        try (ScriptedConnection c = open()) {
            c.sendRaw(tooLong);
            StartupAnswer answer = readReply(c);
            Verdict verdict;
            String observed = describe(answer);
            if (answer.outcome() == Outcome.CLOSED) {
                verdict = accepted512 ? Verdict.PASS : Verdict.INCONCLUSIVE;
                observed += accepted512 ? "" : " (so was the PD_Length 512 Request: not evidence of the 512 limit)";
            } else if (answer.outcome() == Outcome.TIMEOUT) {
                verdict = Verdict.INCONCLUSIVE;
            } else {
                verdict = Verdict.FAIL;
            }
            add("private-data-513", "MPA-R-051", verdict, observed,
                    "closes the connection: PD_Length above 512 makes the Request invalid", replyFacts(answer),
                    c.elapsedMillis());
        }
    }

    /**
     * A peer-to-peer Request offering every RTR. The Reply must echo A and name at least one RTR
     * (MPA2-R-008), and its ORD must not exceed our IRD (MPA2-R-005; RFC 6581 §9.1: 0x3FFF
     * answers only an Initiator IRD of 0x3FFF, and ours is 4). R=1 is the ULP's right (RFC 5044
     * §7.1.2 rules 2 and 6): info, and nothing more to judge; a close is not.
     */
    private void peerToPeer() throws IOException {
        if (!enhanced) {
            for (String p : List.of("control-flag-a-echo", "rtr-options", "ird-ord")) {
                add(p, p.equals("ird-ord") ? "MPA2-R-005" : "MPA2-R-008", Verdict.INCONCLUSIVE,
                        "the peer does not accept enhanced Requests", "", facts(), 0);
            }
            return;
        }
        EnhancedConnectionData offer = new EnhancedConnectionData(true, EnumSet.allOf(RtrType.class), OUR_IRD, OUR_ORD);
        String expectedEcho = "the Reply echoes A=1";
        try (ScriptedConnection c = open()) {
            c.sendRaw(ScriptedConnection.encode(MpaStartupFrame.request(false, useCrc, 2, offer, new byte[0])));
            StartupAnswer answer = readReply(c);
            Map<String, Object> facts = replyFacts(answer);
            if (!accepted(answer) || !answer.reply().enhanced()) {
                Verdict v = answer.outcome() == Outcome.TIMEOUT ? Verdict.INCONCLUSIVE
                        : rejected(answer) ? Verdict.INFO : Verdict.FAIL;
                add("control-flag-a-echo", "MPA2-R-008", v, "peer-to-peer Request: " + describe(answer)
                        + (rejected(answer) ? " (its ULP may refuse, RFC 5044 §7.1.2 rules 2 and 6)" : ""),
                        expectedEcho, facts, c.elapsedMillis());
                String why = "no accepting enhanced Reply to a peer-to-peer Request";
                add("rtr-options", "MPA2-R-008", Verdict.INCONCLUSIVE, why, "", facts(), 0);
                add("ird-ord", "MPA2-R-005", Verdict.INCONCLUSIVE, why, "", facts(), 0);
                return;
            }
            EnhancedConnectionData word = answer.reply().enhancedData();
            add("control-flag-a-echo", "MPA2-R-008", word.peerToPeer() ? Verdict.PASS : Verdict.FAIL,
                    "Request A=1 RTR {send,write,read}; Reply " + word(word), expectedEcho, facts, c.elapsedMillis());
            String expectedRtr = "at least one RTR option in a peer-to-peer Reply";
            if (word.peerToPeer()) {
                add("rtr-options", "MPA2-R-008", word.rtrTypes().isEmpty() ? Verdict.FAIL : Verdict.PASS,
                        "the Reply names {" + rtrNames(word.rtrTypes()) + "}", expectedRtr,
                        facts("reply_rtr", rtrNames(word.rtrTypes())), 0);
            } else {
                add("rtr-options", "MPA2-R-008", Verdict.INCONCLUSIVE, "the Reply has A=0: no RTR options to judge",
                        expectedRtr, facts("reply_rtr", rtrNames(word.rtrTypes())), 0);
            }
            add("ird-ord", "MPA2-R-005", word.ord() <= OUR_IRD ? Verdict.PASS : Verdict.FAIL,
                    "we offered IRD " + OUR_IRD + " ORD " + OUR_ORD + "; granted IRD " + word.ird() + " ORD "
                            + word.ord(),
                    "the Responder's ORD is at most our IRD", facts("reply_ird", word.ird(), "reply_ord", word.ord()),
                    0);
            c.fullOperation(useCrc || answer.reply().crc(), answer.reply().markers(), false);
            if (word.peerToPeer()) {
                // A well-behaved Initiator sends the RTR before it goes (MPA2-R-009), or the Terminate of MPA2-R-010.
                settle(c, answer.reply(), word.rtrTypes());
            }
        }
    }

    /**
     * Ends a peer-to-peer connection as a conformant Initiator does. With an RTR the Reply names:
     * sends it and, before the connection is closed, waits (bounded) for the answer to a
     * zero-length Read (the Read RTR's own answer does): closing right behind the RTR was seen to
     * leave Linux rping -P on siw without any event for that connection, after which it accepted
     * no other. With none named, sends the Terminate MPA2-R-010 asks for: LLP "no matching RTR
     * option" (0x2/0x0/0x07). Nothing is judged here.
     */
    private void settle(ScriptedConnection c, MpaStartupFrame reply, Set<RtrType> named) throws IOException {
        if (named.isEmpty()) {
            c.send(Wire.terminate(TerminateReason.LLP_NO_MATCHING_RTR));
            return;
        }
        RtrType rtr = preferred(named);
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
    private static void sendRtr(ScriptedConnection c, RtrType rtr) {
        switch (rtr) {
            case WRITE -> c.send(Wire.write(0, 0, new byte[0]));
            case READ -> c.send(Wire.readRequest(1, new ReadRequestHeader(RTR_SINK_STAG, 0, 0, 0, 0)));
            default -> c.send(Wire.zeroLengthSend(1));
        }
    }

    private void rtr(RtrType rtr) throws IOException {
        String probe = rtrProbe(rtr);
        String expected = "a peer that names this RTR in its Reply takes it: no Terminate, no delivery, "
                + "a Read RTR answered by a zero-length Read Response";
        if (!enhanced) {
            add(probe, "MPA2-R-012", Verdict.INCONCLUSIVE, "the peer does not accept enhanced Requests", expected,
                    facts(), 0);
            return;
        }
        EnhancedConnectionData offer = new EnhancedConnectionData(true, EnumSet.of(rtr), OUR_IRD, OUR_ORD);
        try (ScriptedConnection c = open()) {
            c.sendRaw(ScriptedConnection.encode(MpaStartupFrame.request(false, useCrc, 2, offer, new byte[0])));
            StartupAnswer answer = readReply(c);
            Map<String, Object> facts = replyFacts(answer);
            if (!accepted(answer) || !answer.reply().enhanced()) {
                add(probe, "MPA2-R-012", answer.outcome() == Outcome.TIMEOUT ? Verdict.INCONCLUSIVE : Verdict.INFO,
                        "not accepted: " + describe(answer), expected, facts, c.elapsedMillis());
                return;
            }
            EnhancedConnectionData word = answer.reply().enhancedData();
            c.fullOperation(useCrc || answer.reply().crc(), answer.reply().markers(), false);
            if (!word.peerToPeer() || !word.rtrTypes().contains(rtr)) {
                if (word.peerToPeer()) {
                    // Not the one we offered, but maybe one we can send: MPA2-R-010 lets us use it, and
                    // the peer's application sees a normal connection (a Terminate with LLP code 7
                    // instead leaves Linux rping -P waiting for that connection for good); with none
                    // named, that Terminate is what MPA2-R-010 asks for.
                    settle(c, answer.reply(), word.rtrTypes());
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
                if (!isEmptyReadResponseTo(received, RTR_SINK_STAG)) {
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
            boolean alive = isEmptyReadResponseTo(received, PING_SINK_STAG);
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
            StartupAnswer answer = readReply(c);
            Map<String, Object> facts = replyFacts(answer);
            String observed;
            if (!accepted(answer)) {
                observed = describe(answer);
            } else if (answer.reply().markers()) {
                observed = "accepted (Reply asks for markers, not followed further)";
            } else {
                Received received = nextNotSend(c, timeout, facts);
                facts.put("answer", describe(received));
                observed = switch (received.outcome()) {
                    case RECEIVED -> isEmptyReadResponseTo(received, PING_SINK_STAG)
                            ? "Reply, then took the early zero-length Read as the first FPDU and answered it"
                            : "Reply, then " + describe(received);
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
            StartupAnswer answer = readReply(c);
            if (!accepted(answer)) {
                noConnectionForTerminate(c, "terminate-write-invalid-stag", "DDP-R-049", expected,
                        "no connection: " + describe(answer), answer);
                return;
            }
            c.fullOperation(useCrc || answer.reply().crc(), answer.reply().markers(), false);
            ByteBuf write = Wire.write(BOGUS_STAG, 0, SIXTEEN);
            byte[] sent = ByteBufUtil.getBytes(write);
            c.send(write);
            judgeTerminate(c, new TerminateCase("terminate-write-invalid-stag", "DDP-R-049", expected, sent,
                    Set.of(TerminateReason.DDP_TAGGED_INVALID_STAG, TerminateReason.DDP_TAGGED_STAG_NOT_ASSOCIATED),
                    reason -> false, null));
        }
    }

    private void readFromInvalidStag() throws IOException {
        String expected = "Terminate RDMAP 0/1/00 (remote protection, invalid STag) with D=1 and R=1 echoing our"
                + " DDP header and Read Request header";
        try (ScriptedConnection c = open()) {
            c.sendRaw(ScriptedConnection.encode(plainRequest()));
            StartupAnswer answer = readReply(c);
            if (!accepted(answer) || !mayRead(answer.reply())) {
                noConnectionForTerminate(c, "terminate-read-invalid-stag", "RDMAP-R-014", expected, accepted(answer)
                        ? "the peer granted IRD 0" : "no connection: " + describe(answer), answer);
                return;
            }
            c.fullOperation(useCrc || answer.reply().crc(), answer.reply().markers(), false);
            ReadRequestHeader header = new ReadRequestHeader(PING_SINK_STAG, 0, SIXTEEN.length, BOGUS_STAG, 0);
            ByteBuf read = Wire.readRequest(1, header);
            byte[] sent = ByteBufUtil.getBytes(read);
            c.send(read);
            // RDMAP-R-014 asks for the Remote Protection Error type (0/1): invalid STag and "not
            // associated" fit an STag nobody registered; another code of that type is a warning.
            judgeTerminate(c, new TerminateCase("terminate-read-invalid-stag", "RDMAP-R-014", expected, sent,
                    Set.of(TerminateReason.RDMAP_INVALID_STAG, TerminateReason.RDMAP_STAG_NOT_ASSOCIATED),
                    reason -> reason.layerCode() == 0 && reason.errorType() == 1, header));
        }
    }

    private void noConnectionForTerminate(ScriptedConnection c, String probe, String requirement, String expected,
                                          String observed, StartupAnswer answer) {
        add(probe, requirement, Verdict.INCONCLUSIVE, observed, expected, replyFacts(answer), c.elapsedMillis());
        add(probe + "-layout", "RDMAP-R-040", Verdict.INCONCLUSIVE, "no Terminate to judge", LAYOUT_EXPECTED, facts(), 0);
    }

    private static final String LAYOUT_EXPECTED = "M, D and R announce exactly the echoed fields that follow; reserved"
            + " bits zero";

    /**
     * What a Terminate probe sent and accepts: the {@code allowed} reasons pass, a reason
     * {@code warnIf} takes is a warning (the type the requirement asks for, another code), any
     * other fails; {@code readHeader} is the Read Request header to find echoed, or null.
     */
    private record TerminateCase(String probe, String requirement, String expected, byte[] sent,
                                 Set<TerminateReason> allowed, java.util.function.Predicate<TerminateReason> warnIf,
                                 ReadRequestHeader readHeader) {
    }

    /**
     * Waits for the Terminate our erroneous segment deserves and judges it twice. First the
     * content (the case's requirement): is it a Terminate at all (RDMAP-R-036: an error on an
     * incoming Write or Read Request is reported with one; a close is not that), sent as RFC 5040
     * §5.4 has it (RDMAP-R-025: untagged, QN 2, MSN 1, MO 0, L=1; RDMAP-R-002: RDMAP version 1),
     * the reason, the echoed segment length and DDP header (RDMAP-R-026), for a Read Request the
     * echoed Read Request header. Then the layout ({@code probe}{@code -layout}, RDMAP-R-040): do M,
     * D and R announce exactly the octets that follow, with the reserved bits zero? Two Linux siw
     * habits are named where they explain what arrived: layer and type nibbles swapped, and M/D/R
     * in the low bits of the control field's third octet (the little-endian bit-field order of its
     * {@code struct iwarp_terminate}); in the latter case the headers are read as those bits
     * announce them, so that the content can still be judged.
     */
    private void judgeTerminate(ScriptedConnection c, TerminateCase tc) throws IOException {
        Map<String, Object> facts = new LinkedHashMap<>();
        Received received = answer(c, facts);
        facts.put("answer", describe(received));
        Wire.Message m = received.outcome() == Outcome.RECEIVED ? Wire.parse(received.ulpdu()) : null;
        if (m == null || m.terminate() == null) {
            add(tc.probe(), "RDMAP-R-036", Verdict.FAIL, "no Terminate: " + describe(received), tc.expected(), facts,
                    c.elapsedMillis());
            add(tc.probe() + "-layout", "RDMAP-R-040", Verdict.INCONCLUSIVE, "no Terminate to judge", LAYOUT_EXPECTED,
                    facts(), 0);
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
        String framing = m.terminateFramingProblem();
        if (!framing.isEmpty()) {
            facts.put("terminate_framing", framing);
        }

        int lowBits = t.reservedBits() >>> 8 & 0x07;  // bit 0 M, bit 1 D, bit 2 R in siw's layout
        boolean siwFlags = !t.ddpHeaderIncluded() && !t.rdmaHeaderIncluded() && (lowBits & 0x02) != 0
                && (t.reservedBits() & ~0x0700) == 0;
        TerminateMessage content = t;
        if (siwFlags) {
            // The Terminate header starts after the DDP header: 18 octets if untagged as it should be, 14 if not.
            byte[] fixed = Arrays.copyOfRange(received.ulpdu(), m.headerLength(), received.ulpdu().length);
            fixed[2] = (byte) (((lowBits & 1) != 0 ? 0x80 : 0) | 0x40 | ((lowBits & 4) != 0 ? 0x20 : 0));
            content = TerminateMessage.decode(io.netty.buffer.Unpooled.wrappedBuffer(fixed));
        }
        facts.put("siw_flag_layout", siwFlags);

        byte[] echoedDdp = content.terminatedDdpHeader();
        boolean ddpEchoed = echoedDdp != null && Arrays.equals(echoedDdp, Wire.ddpHeaderOf(tc.sent()));
        boolean lengthEchoed = content.ddpSegmentLength() == tc.sent().length;
        facts.put("ddp_header_echoed", ddpEchoed);
        if (echoedDdp != null && !ddpEchoed) {
            facts.put("echoed_ddp_header", ByteBufUtil.hexDump(echoedDdp));
            facts.put("sent_ddp_header", ByteBufUtil.hexDump(Wire.ddpHeaderOf(tc.sent())));
        }
        facts.put("segment_length", content.ddpSegmentLength());
        boolean rdmaEchoed = tc.readHeader() == null || tc.readHeader().equals(content.terminatedRdmaHeader());
        if (tc.readHeader() != null) {
            facts.put("read_request_header_echoed", rdmaEchoed);
        }
        String observed = "Terminate " + reasonText(reason) + (t.ddpHeaderIncluded() ? ", D=1" : ", D=0")
                + (t.rdmaHeaderIncluded() ? " R=1" : "") + (siwFlags ? " (D set in siw's layout)" : "")
                + (ddpEchoed ? ", our DDP header copied back" : "")
                + (tc.readHeader() != null && rdmaEchoed ? ", our Read Request header copied back" : "");
        String requirement = tc.requirement();
        Verdict verdict;
        if (!framing.isEmpty()) {
            requirement = framing.equals("RDMAP version " + m.rdmapVersion()) ? "RDMAP-R-002" : "RDMAP-R-025";
            verdict = Verdict.FAIL;
            observed += "; not sent as RFC 5040 §5.4 has it: " + framing;
        } else if (!tc.allowed().contains(reason)) {
            TerminateReason swapped = TerminateReason.of(reason.errorType(), reason.layerCode(), reason.errorCode());
            boolean siwSwap = tc.allowed().contains(swapped);
            facts.put("swapped_layer_type", siwSwap);
            boolean typeOnly = tc.warnIf().test(reason);
            verdict = typeOnly ? Verdict.WARN : Verdict.FAIL;
            observed += typeOnly ? "; the error type asked for, but a code that does not name an unknown STag"
                    : siwSwap ? "; looks like siw's swapped layer/type nibbles: read the other way it is "
                    + reasonText(swapped) : "";
        } else if (!ddpEchoed || !lengthEchoed || !rdmaEchoed) {
            verdict = Verdict.WARN;
            observed += "; the headers are not all copied back" + (lengthEchoed ? "" : " (segment length "
                    + content.ddpSegmentLength() + ", ours " + tc.sent().length + ")");
        } else {
            verdict = Verdict.PASS;
        }
        long closed = c.awaitClose(Duration.ofMillis(Math.min(1000, timeout.toMillis())));
        facts.put("closed_after_terminate", closed >= 0);
        add(tc.probe(), requirement, verdict, observed, tc.expected(), facts, c.elapsedMillis());
        judgeLayout(tc.probe() + "-layout", t, m.payloadLength(), siwFlags);
    }

    /**
     * RDMAP-R-040 (RFC 5040 §4.8): the DDP Segment Length and DDP header are present when D is
     * set, the Read Request header when R is set — whatever the echoed DDP header is (our
     * decoder forgives R without it, as siw sends for Send with Invalidate; the rule does not) —
     * nothing follows that the bits do not announce, and the 13 reserved bits are zero.
     */
    private void judgeLayout(String probe, TerminateMessage t, int terminateLength, boolean siwFlags) {
        int follows = terminateLength - 4;
        int announced = (t.ddpHeaderIncluded() ? 2 + (t.terminatedDdpHeader() == null ? 0
                : t.terminatedDdpHeader().length) : 0) + (t.terminatedRdmaHeader() != null ? 28 : 0);
        boolean ddpMissing = t.ddpHeaderIncluded() && t.terminatedDdpHeader() == null;
        boolean rdmaMissing = t.rdmaHeaderIncluded() && t.terminatedRdmaHeader() == null;
        boolean layoutOk = follows == announced && t.reservedBits() == 0 && !ddpMissing && !rdmaMissing;
        String flags = "M=" + bit(t.segmentLengthValid()) + " D=" + bit(t.ddpHeaderIncluded()) + " R="
                + bit(t.rdmaHeaderIncluded());
        String observed = layoutOk ? flags + " announce the " + follows + " octets that follow"
                : flags + " announce " + announced + " octets, " + follows + " follow"
                + (ddpMissing ? "; D=1 without the DDP Segment Length and DDP header" : "")
                + (rdmaMissing ? "; R=1 without the 28-octet Read Request header" : "")
                + (t.reservedBits() != 0 ? String.format(", reserved bits 0x%04x", t.reservedBits()) : "")
                + (siwFlags ? "; looks like siw's little-endian bit-fields: M/D/R in the low bits of octet 2" : "");
        add(probe, "RDMAP-R-040", layoutOk ? Verdict.PASS : Verdict.FAIL, observed, LAYOUT_EXPECTED,
                facts("control_word", String.format("0x%08x", t.controlWord()), "terminate_length", terminateLength,
                        "siw_flag_layout", siwFlags), 0);
    }

    private static String bit(boolean b) {
        return b ? "1" : "0";
    }

    private void zeroLengthWriteBogusStag() throws IOException {
        String expected = "no error: a zero-length tagged segment's STag and TO are not checked";
        try (ScriptedConnection c = open()) {
            c.sendRaw(ScriptedConnection.encode(plainRequest()));
            StartupAnswer answer = readReply(c);
            if (!accepted(answer) || !mayRead(answer.reply())) {
                add("zero-length-write-bogus-stag", "DDP-R-031", Verdict.INCONCLUSIVE, accepted(answer)
                        ? "the peer granted IRD 0: no zero-length Read to show the connection survived"
                        : "no connection: " + describe(answer), expected, replyFacts(answer), c.elapsedMillis());
                return;
            }
            c.fullOperation(useCrc || answer.reply().crc(), answer.reply().markers(), false);
            c.send(Wire.write(BOGUS_STAG, 0xFFFF_FFFF_FFFF_FFF0L, new byte[0]));
            Map<String, Object> facts = new LinkedHashMap<>();
            Received received = pingAnswer(c, facts);
            boolean alive = isEmptyReadResponseTo(received, PING_SINK_STAG);
            add("zero-length-write-bogus-stag", "DDP-R-031", alive ? Verdict.PASS : verdictForUnexpected(received),
                    alive ? "ignored: the zero-length Read that followed was answered"
                            : "after the zero-length Write: " + describe(received), expected, facts, c.elapsedMillis());
        }
    }

    private void startupTimeout() throws IOException {
        String expected = "the Responder gives up on a connection that sends no Request (a SHOULD)";
        // --timeout bounds the connect, as everywhere; the wait is the startup wait's.
        try (ScriptedConnection c = open(timeout, startupWait.plus(timeout))) {
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
