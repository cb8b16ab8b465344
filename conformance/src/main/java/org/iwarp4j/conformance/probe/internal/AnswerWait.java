package org.iwarp4j.conformance.probe.internal;

import java.io.IOException;
import java.time.Duration;
import java.util.Locale;
import java.util.Map;
import org.iwarp4j.conformance.probe.Verdict;
import org.iwarp4j.conformance.probe.internal.ScriptedConnection.Outcome;
import org.iwarp4j.conformance.probe.internal.ScriptedConnection.Received;
import org.iwarp4j.rdmap.TerminateReason;
import org.iwarp4j.rdmap.internal.wire.ReadRequestHeader;

/** Waits for the peer's answer to what a probe sent after the Reply, and says what it was. */
final class AnswerWait {

    /** The sink STag of our zero-length Reads; never checked by the peer (RFC 5040 §5.2.1), echoed in its Read Response. */
    static final int PING_SINK_STAG = 1;
    /**
     * Our liveness check: a zero-length Read Request, sink and source STag 1 as Linux siw's Read
     * RTR has them; RFC 5040 §5.2.1 says neither is checked and one zero-length Read Response answers it.
     */
    static final ReadRequestHeader PING = new ReadRequestHeader(PING_SINK_STAG, 0, 0, 1, 0);
    /**
     * How many of the peer's own Sends one wait passes over: MPA-R-061 lets a Responder send once
     * our first FPDU arrived, and its ULP's message is not the answer a probe waits for; bounded,
     * so that a peer that sends without end cannot hold a probe beyond its timeout's reach.
     */
    static final int MAX_SKIPPED_SENDS = 8;
    /** How long we wait for an answer to our first FPDUs before sending a wake-up Write. */
    static final Duration WAKE_UP_AFTER = Duration.ofSeconds(1);

    private final Duration timeout;

    AnswerWait(Duration timeout) {
        this.timeout = timeout;
    }

    /** Sends a zero-length Read Request (RFC 5040 §5.2.1: never checked, answered by one zero-length Read Response). */
    static void ping(ScriptedConnection c, int msn) {
        c.send(Wire.readRequest(msn, PING));
    }

    /** Sends a zero-length Read (MSN 1) and waits for the answer, which goes into {@code facts} as {@code answer}. */
    Received pingAnswer(ScriptedConnection c, Map<String, Object> facts) throws IOException {
        ping(c, 1);
        Received received = answer(c, facts);
        facts.put("answer", describe(received));
        return received;
    }

    /** Whether {@code received} is the zero-length Read Response to a Read Request with this sink STag. */
    static boolean isEmptyReadResponseTo(Received received, int sinkStag) {
        return received.outcome() == Outcome.RECEIVED && Wire.parse(received.ulpdu()).isEmptyReadResponseTo(sinkStag);
    }

    /**
     * The peer's answer to what we just sent, passing over up to {@link #MAX_SKIPPED_SENDS} of its
     * own Sends (fact {@code peer_sends_skipped}). If nothing comes within {@link #WAKE_UP_AFTER},
     * one zero-length Write (STag 1, TO 0: never checked, never delivered, DDP-R-031) goes out and
     * we wait for the rest of the timeout: Linux siw 6.1 as Responder can leave an FPDU that
     * arrived right after its Reply unread until more data comes (docs/siw-interop.md), and a probe
     * must not mistake that for silence. {@code facts} gets {@code wake_up_write} when one was sent.
     */
    Received answer(ScriptedConnection c, Map<String, Object> facts) throws IOException {
        boolean wakeUp = WAKE_UP_AFTER.compareTo(timeout) < 0;
        SendSkipper skipper = new SendSkipper(c, facts);
        Received first = skipper.next(wakeUp ? WAKE_UP_AFTER : timeout);
        if (first.outcome() != Outcome.TIMEOUT || !wakeUp) {
            return first;
        }
        facts.put("wake_up_write", true);
        c.send(Wire.write(1, 0, new byte[0]));
        return skipper.next(timeout.minus(WAKE_UP_AFTER));
    }

    /** As {@link #answer} without the wake-up Write, waiting at most {@code max}. */
    static Received nextNotSend(ScriptedConnection c, Duration max, Map<String, Object> facts) throws IOException {
        return new SendSkipper(c, facts).next(max);
    }

    /**
     * One wait's passing over the peer's Sends: at most {@link #MAX_SKIPPED_SENDS} in this wait,
     * however many the waits before it on the connection passed over; {@code peer_sends_skipped}
     * counts them all.
     */
    private static final class SendSkipper {
        private final ScriptedConnection c;
        private final Map<String, Object> facts;
        private int skipped;

        SendSkipper(ScriptedConnection c, Map<String, Object> facts) {
            this.c = c;
            this.facts = facts;
        }

        Received next(Duration max) throws IOException {
            long until = System.nanoTime() + max.toNanos();
            while (true) {
                Received r = c.next(Duration.ofNanos(until - System.nanoTime()));
                if (r.outcome() != Outcome.RECEIVED || skipped >= MAX_SKIPPED_SENDS || !Wire.parse(r.ulpdu()).isSend()) {
                    return r;
                }
                skipped++;
                facts.merge("peer_sends_skipped", 1, (a, b) -> (Integer) a + (Integer) b);
            }
        }
    }

    /** What the next ULPDU is, for facts and messages. */
    static String describe(Received received) {
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

    static String reasonText(TerminateReason reason) {
        return String.format("%x/%x/%02x (%s)", reason.layerCode(), reason.errorType(), reason.errorCode(),
                reason.description());
    }

    /** A Terminate, a close or garbage where a conformant peer answers is a failure; silence is inconclusive. */
    static Verdict verdictForUnexpected(Received received) {
        return received.outcome() == Outcome.TIMEOUT ? Verdict.INCONCLUSIVE : Verdict.FAIL;
    }
}
