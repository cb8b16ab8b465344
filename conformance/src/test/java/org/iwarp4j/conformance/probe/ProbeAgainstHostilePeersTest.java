package org.iwarp4j.conformance.probe;

import static org.assertj.core.api.Assertions.assertThat;
import static org.iwarp4j.conformance.probe.ScriptedAnswers.conformant;
import static org.iwarp4j.conformance.probe.ScriptedAnswers.enhancedReply;
import static org.iwarp4j.conformance.probe.ScriptedAnswers.isBogusRead;
import static org.iwarp4j.conformance.probe.ScriptedAnswers.isBogusWrite;
import static org.iwarp4j.conformance.probe.ScriptedAnswers.plainReply;
import static org.iwarp4j.conformance.probe.Verdict.FAIL;
import static org.iwarp4j.conformance.probe.Verdict.INCONCLUSIVE;
import static org.iwarp4j.conformance.probe.Verdict.INFO;
import static org.iwarp4j.conformance.probe.Verdict.PASS;
import static org.iwarp4j.conformance.probe.Verdict.WARN;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.function.Function;
import java.util.function.UnaryOperator;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.iwarp4j.ddp.TaggedHeader;
import org.iwarp4j.mpa.EnhancedConnectionData;
import org.iwarp4j.mpa.MpaStartupFrame;
import org.iwarp4j.mpa.RtrType;
import org.iwarp4j.rdmap.TerminateReason;
import org.iwarp4j.rdmap.internal.wire.TerminateMessage;
import org.junit.jupiter.api.Test;

/**
 * The probe against scripted Responders that are RFC 5044-only, slow, rude or sloppy: each must be
 * judged by what it did, with every documented probe in the report, and no probe blamed for what
 * another one could not see.
 */
class ProbeAgainstHostilePeersTest {

    private static final Duration TIMEOUT = Duration.ofSeconds(2);
    private static final Duration STARTUP_WAIT = Duration.ofMillis(200);

    private static ProbeReport probe(ScriptedResponder peer) throws Exception {
        try (peer) {
            return Probe.builder(peer.address()).timeout(TIMEOUT).startupWait(STARTUP_WAIT).build().run();
        }
    }

    private static ScriptedResponder peer(UnaryOperator<MpaStartupFrame> reply, Function<byte[], byte[]> answer)
            throws Exception {
        return new ScriptedResponder(reply, answer, false);
    }

    /** The probe names of docs/probe.md's table, in its order. */
    private static List<String> documentedProbes() throws Exception {
        Path doc = Paths.get(System.getProperty("iwarp4j.testdata.dir")).getParent().resolve("docs/probe.md");
        List<String> names = new ArrayList<>();
        Pattern row = Pattern.compile("^\\| ((?:`[a-z0-9-]+`(?:, )?)+) \\| [A-Z0-9]+-R-\\d{3} \\|");
        for (String line : Files.readAllLines(doc)) {
            Matcher m = row.matcher(line);
            if (m.find()) {
                Matcher name = Pattern.compile("`([a-z0-9-]+)`").matcher(m.group(1));
                while (name.find()) {
                    names.add(name.group(1));
                }
            }
        }
        assertThat(names).hasSizeGreaterThan(15);
        return names;
    }

    private static void assertEveryDocumentedProbeIsThere(ProbeReport report) throws Exception {
        assertThat(report.observations()).extracting(Observation::probe).as(report.toTable())
                .containsExactlyElementsOf(documentedProbes());
    }

    /**
     * RFC 6581 §10: a Responder that does not do the enhanced mode closes the connection on a
     * revision 2, S=1 Request (MPA2-R-003 is not its rule; MPA2-R-004 lets the Initiator retry
     * with revision 1). The CRC probes then go over revision 1: the C=0 Request, and the same
     * Request with C=1 whose FPDUs are checked (MPA-R-026).
     */
    @Test
    void anRfc5044OnlyResponderClosingOnRevisionTwoIsInfoAndItsCrcIsJudgedOverRevisionOne() throws Exception {
        ScriptedResponder rfc5044 = peer(r -> r.revision() >= 2 ? null : plainReply(r), ScriptedAnswers::conformant);
        ProbeReport report = probe(rfc5044);

        Observation rev2 = report.observation("mpa-revision-2");
        assertThat(rev2.verdict()).as(report.toTable()).isEqualTo(INFO);
        assertThat(rev2.facts()).containsEntry("reply", "closed");
        assertThat(report.observation("client-server-a-clear").verdict()).isEqualTo(INCONCLUSIVE);
        Observation crc = report.observation("crc-honoured");
        assertThat(crc.verdict()).isEqualTo(PASS);
        assertThat(crc.requirement()).isEqualTo("MPA-R-026");
        assertThat(report.observation("crc-required").observed()).isEqualTo("does not require CRC: answers C=0 to our C=0");
        // Octets 16 and 17 of the first Requests: rev 2 S=1 C=1, then rev 1 C=0, then rev 1 C=1.
        assertThat(rfc5044.requests.subList(0, 3)).extracting(MpaStartupFrame::flags, MpaStartupFrame::revision)
                .containsExactly(org.assertj.core.groups.Tuple.tuple(0x50, 2), org.assertj.core.groups.Tuple.tuple(0x00, 1),
                        org.assertj.core.groups.Tuple.tuple(0x40, 1));
        assertThat(report.observation("mpa-revision-1").verdict()).isEqualTo(PASS);
        assertEveryDocumentedProbeIsThere(report);
        assertThat(report.exitStatus()).as(report.toTable()).isZero();
    }

    /** A first connection lost is no evidence against CRC (MPA-R-023): the C=1 Request is tried again. */
    @Test
    void aPeerThatIgnoresTheFirstConnectionIsNotFailedForCrc() throws Exception {
        ScriptedResponder slow = peer(ScriptedAnswers::enhancedReply, ScriptedAnswers::conformant).silentFor(1);
        ProbeReport report = probe(slow);

        assertThat(report.observation("mpa-revision-2").verdict()).as(report.toTable()).isEqualTo(INCONCLUSIVE);
        assertThat(report.observation("crc-honoured").verdict()).isEqualTo(PASS);
        assertThat(report.observation("crc-required").verdict()).isEqualTo(INFO);
        assertThat(report.exitStatus()).isZero();
    }

    /**
     * A peer that resets each connection right behind its Reply: the probes that need the
     * connection fail as for any close (our sends into the reset connection are not a failure to
     * connect), and the run is not mistaken for "no connection" (exit status 1, not 3).
     */
    @Test
    void aPeerThatResetsRightAfterItsReplyFailsWhatNeedsTheConnection() throws Exception {
        ProbeReport report = probe(peer(ScriptedAnswers::enhancedReply, ScriptedAnswers::conformant).resetAfterReply());

        assertThat(report.observations()).as(report.toTable())
                .noneMatch(o -> o.observed().startsWith("connection failed"));
        assertThat(report.observation("mpa-revision-2").verdict()).isEqualTo(PASS);
        Observation crc = report.observation("crc-honoured");
        assertThat(crc.verdict()).isEqualTo(INCONCLUSIVE);
        assertThat(crc.facts()).containsEntry("answer", "connection reset");
        assertThat(report.observation("rtr-write").verdict()).isEqualTo(FAIL);
        assertThat(report.observation("rtr-write").observed()).isEqualTo("named in the Reply, but after the RTR: connection reset");
        assertThat(report.observation("terminate-write-invalid-stag").verdict()).isEqualTo(FAIL);
        assertThat(report.observation("zero-length-write-bogus-stag").verdict()).isEqualTo(FAIL);
        assertEveryDocumentedProbeIsThere(report);
        assertThat(report.exitStatus()).isEqualTo(1);
    }

    /**
     * A Responder whose ULP refuses peer-to-peer and long private data with R=1 (RFC 5044 §7.1.2
     * rules 2 and 6 allow it) and that closes instead of sending a Terminate for our errors
     * (RDMAP-R-036 asks for one): every probe is still reported, the ones that depended on what
     * did not happen as inconclusive.
     */
    @Test
    void aPeerThatRejectsAndClosesStillGetsEveryProbeReported() throws Exception {
        UnaryOperator<MpaStartupFrame> reply = r -> {
            EnhancedConnectionData offer = r.enhancedData();
            boolean refuse = offer != null && offer.peerToPeer() || r.privateDataLength() > 256;
            MpaStartupFrame accept = enhancedReply(r);
            return refuse ? MpaStartupFrame.reply(false, r.crc(), true, accept.revision(), accept.enhancedData(),
                    new byte[0]) : accept;
        };
        ProbeReport report = probe(peer(reply, u -> isBogusWrite(u) || isBogusRead(u) ? ScriptedResponder.CLOSE
                : conformant(u)));

        assertEveryDocumentedProbeIsThere(report);
        assertThat(report.observation("private-data-512").verdict()).as(report.toTable()).isEqualTo(INFO);
        // 512 got a Reply (R=1), 513 a close: the peer told the lengths apart (MPA-R-051).
        assertThat(report.observation("private-data-513").verdict()).as("512 answered, 513 closed").isEqualTo(PASS);
        assertThat(report.observation("control-flag-a-echo").verdict()).isEqualTo(INFO);
        assertThat(report.observation("control-flag-a-echo").observed()).startsWith("peer-to-peer Request: rejected: Reply R=1");
        assertThat(report.observation("rtr-options").verdict()).isEqualTo(INCONCLUSIVE);
        assertThat(report.observation("ird-ord").verdict()).isEqualTo(INCONCLUSIVE);
        for (String p : List.of("terminate-write-invalid-stag", "terminate-read-invalid-stag")) {
            Observation o = report.observation(p);
            assertThat(o.verdict()).isEqualTo(FAIL);
            assertThat(o.requirement()).isEqualTo("RDMAP-R-036");
            assertThat(o.observed()).isEqualTo("no Terminate: connection closed");
            assertThat(report.observation(p + "-layout").verdict()).isEqualTo(INCONCLUSIVE);
        }
    }

    /** A=0 answered to A=1 fails MPA2-R-008, and the RTR options it cannot have are reported as unseen. */
    @Test
    void aPeerAnsweringPeerToPeerWithAZeroStillGetsEveryProbeReported() throws Exception {
        UnaryOperator<MpaStartupFrame> reply = r -> {
            EnhancedConnectionData offer = r.enhancedData();
            if (offer == null || !offer.peerToPeer()) {
                return enhancedReply(r);
            }
            return MpaStartupFrame.reply(false, r.crc(), false, 2, new EnhancedConnectionData(false, Set.of(), 4, 4),
                    new byte[0]);
        };
        ProbeReport report = probe(peer(reply, ScriptedAnswers::conformant));

        assertEveryDocumentedProbeIsThere(report);
        assertThat(report.observation("control-flag-a-echo").verdict()).as(report.toTable()).isEqualTo(FAIL);
        assertThat(report.observation("rtr-options").verdict()).isEqualTo(INCONCLUSIVE);
        assertThat(report.observation("ird-ord").verdict()).isEqualTo(PASS);
    }

    /**
     * RDMAP-R-025: a Terminate is untagged, on queue 2, MSN 1, MO 0, one segment; a tagged one
     * (here with 0x02 in the control field's third octet, which once crashed the siw-layout
     * reading) or one with MSN 2 fails, whatever it says.
     */
    @Test
    void aTerminateNotSentAsRfc5040SaysFailsUnderRdmap025() throws Exception {
        byte[] tagged = ScriptedAnswers.segment(new TaggedHeader(true, 0x47, 0, 0), new byte[] {0x11, 0, 0x02, 0});
        Function<byte[], byte[]> answer = u -> {
            if (isBogusWrite(u)) {
                return tagged;
            }
            if (isBogusRead(u)) {
                byte[] t = conformant(u);
                t[13] = 2;  // MSN 2: octets 10..13 of the untagged DDP header
                return t;
            }
            return conformant(u);
        };
        ProbeReport report = probe(peer(ScriptedAnswers::enhancedReply, answer));

        Observation write = report.observation("terminate-write-invalid-stag");
        assertThat(write.verdict()).as(report.toTable()).isEqualTo(FAIL);
        assertThat(write.requirement()).isEqualTo("RDMAP-R-025");
        assertThat(write.observed()).contains("not sent as RFC 5040 §5.4 has it: tagged");
        assertThat(write.facts()).containsEntry("control_word", "0x11000200");
        Observation read = report.observation("terminate-read-invalid-stag");
        assertThat(read.verdict()).isEqualTo(FAIL);
        assertThat(read.requirement()).isEqualTo("RDMAP-R-025");
        assertThat(read.observed()).contains("MSN 2");
        assertEveryDocumentedProbeIsThere(report);
    }

    /** RFC 6581 §9.1: the Responder ORD is at most the Initiator IRD (4); 0x3FFF answers only an IRD of 0x3FFF. */
    @Test
    void aResponderOrdOf3fffAboveOurIrdFails() throws Exception {
        UnaryOperator<MpaStartupFrame> reply = r -> {
            MpaStartupFrame accept = enhancedReply(r);
            EnhancedConnectionData w = accept.enhancedData();
            return w == null ? accept : MpaStartupFrame.reply(false, r.crc(), false, 2,
                    new EnhancedConnectionData(w.peerToPeer(), w.rtrTypes(), w.ird(), 0x3FFF), new byte[0]);
        };
        ProbeReport report = probe(peer(reply, ScriptedAnswers::conformant));

        Observation irdOrd = report.observation("ird-ord");
        assertThat(irdOrd.verdict()).as(report.toTable()).isEqualTo(FAIL);
        assertThat(irdOrd.facts()).containsEntry("reply_ord", 0x3FFF);
    }

    /**
     * The peer's own Sends, allowed once our first FPDU arrived (MPA-R-061), are not the answer a
     * probe waits for: each wait skips a few of them.
     */
    @Test
    void thePeersOwnSendsAreNotTakenForTheAnswer() throws Exception {
        ProbeReport report = probe(peer(ScriptedAnswers::enhancedReply, ScriptedAnswers::conformant)
                .sendsFirst(ScriptedAnswers.send(1, "hello".getBytes(StandardCharsets.US_ASCII))));

        for (String p : List.of("crc-honoured", "rtr-write", "rtr-read", "terminate-write-invalid-stag",
                "terminate-read-invalid-stag", "zero-length-write-bogus-stag")) {
            assertThat(report.observation(p).verdict()).as(p + "\n" + report.toTable()).isEqualTo(PASS);
        }
        assertThat(report.observation("terminate-write-invalid-stag").facts()).containsEntry("peer_sends_skipped", 1);
    }

    /**
     * PD_Length 513 makes the Request improperly formatted, and RFC 5044 §7.1.1 and §7.1.2 rules 2
     * and 9 make closing a MUST (MPA-R-051): a Reply with R=1 fails.
     */
    @Test
    void privateData513AnsweredWithARejectFails() throws Exception {
        MpaStartupFrame reject = MpaStartupFrame.reply(false, true, true, 2,
                new EnhancedConnectionData(false, Set.of(), 4, 4), new byte[0]);
        ProbeReport report = probe(peer(ScriptedAnswers::enhancedReply, ScriptedAnswers::conformant)
                .answersOverlong(reject));

        assertThat(report.observation("private-data-512").verdict()).as(report.toTable()).isEqualTo(PASS);
        Observation o = report.observation("private-data-513");
        assertThat(o.verdict()).isEqualTo(FAIL);
        assertThat(o.facts()).containsEntry("reply_reject", true).containsEntry("reply_flags", "0x70");
    }

    /**
     * A Terminate with R=1 but no Read Request header fails the layout (RDMAP-R-040, RFC 5040
     * §4.8), whatever its DDP header says; a Read refused as 0/1/02 (access rights) has the
     * Remote Protection type RDMAP-R-014 asks for and is a warning, not a failure.
     */
    @Test
    void sloppyTerminatesAreJudgedByWhatTheirRequirementsAsk() throws Exception {
        Function<byte[], byte[]> answer = u -> {
            if (isBogusWrite(u)) {
                return ScriptedAnswers.terminate(TerminateMessage.of(TerminateReason.DDP_TAGGED_INVALID_STAG, true,
                        true, true, 0, u.length, Arrays.copyOf(u, 14), null));
            }
            if (isBogusRead(u)) {
                return ScriptedAnswers.terminate(TerminateMessage.of(TerminateReason.RDMAP_ACCESS_RIGHTS_VIOLATION,
                        true, true, true, 0, u.length, Arrays.copyOf(u, 18), ScriptedAnswers.readRequestHeader(u)));
            }
            return conformant(u);
        };
        ProbeReport report = probe(peer(ScriptedAnswers::enhancedReply, answer));

        assertThat(report.observation("terminate-write-invalid-stag").verdict()).as(report.toTable()).isEqualTo(PASS);
        Observation layout = report.observation("terminate-write-invalid-stag-layout");
        assertThat(layout.verdict()).isEqualTo(FAIL);
        assertThat(layout.observed()).contains("R=1 without the 28-octet Read Request header");
        assertThat(layout.facts()).containsEntry("control_word", "0x1100e000");
        Observation read = report.observation("terminate-read-invalid-stag");
        assertThat(read.verdict()).isEqualTo(WARN);
        assertThat(read.facts()).containsEntry("error_code", 2);
        assertThat(report.observation("terminate-read-invalid-stag-layout").verdict()).isEqualTo(PASS);
    }

    /** A listener that takes TCP connections and never answers a Request: exit status 4, not 0. */
    @Test
    void aListenerThatNeverRepliesIsExitStatusFour() throws Exception {
        ProbeReport report;
        try (ScriptedResponder silent = peer(ScriptedAnswers::enhancedReply, ScriptedAnswers::conformant)
                .silentFor(Integer.MAX_VALUE)) {
            report = Probe.builder(silent.address()).timeout(Duration.ofMillis(300)).startupWait(STARTUP_WAIT)
                    .build().run();
        }
        assertThat(report.observations()).as(report.toTable()).noneMatch(o -> o.verdict() == FAIL);
        assertThat(report.observation("mpa-revision-2").verdict()).isEqualTo(INCONCLUSIVE);
        assertThat(report.exitStatus()).isEqualTo(4);
        assertEveryDocumentedProbeIsThere(report);
    }

    /**
     * Smaller things: octet 16 reported whole at revision 1 (its S bit is reserved there, not
     * gone), facts in a fixed order, and a Reply with A=1 and no RTR answered with the Terminate
     * MPA2-R-010 asks for (LLP 0x2/0x0/0x07) rather than a bare close.
     */
    @Test
    void octet16FactOrderAndNoMatchingRtr() throws Exception {
        UnaryOperator<MpaStartupFrame> reply = r -> {
            EnhancedConnectionData offer = r.enhancedData();
            if (offer == null) {
                // S set at revision 1: a reserved bit there (MPA-R-049), with the word as private data
                return MpaStartupFrame.reply(false, r.crc(), false, 1, new EnhancedConnectionData(false, Set.of(), 1, 1),
                        new byte[0]);
            }
            return MpaStartupFrame.reply(false, r.crc(), false, 2, new EnhancedConnectionData(offer.peerToPeer(),
                    Set.of(), 4, 4), new byte[0]);
        };
        ScriptedResponder noRtr = peer(reply, ScriptedAnswers::conformant);
        ProbeReport report = probe(noRtr);

        assertThat(report.observation("mpa-revision-1").facts()).as(report.toTable())
                .containsEntry("reply_revision", 1).containsEntry("reply_flags", "0x50");
        assertThat(report.observation("client-server-a-clear").facts().keySet())
                .containsExactly("reply_peer_to_peer", "reply_rtr");
        assertThat(report.observation("ird-ord").facts().keySet()).containsExactly("reply_ird", "reply_ord");
        assertThat(report.observation("rtr-options").verdict()).isEqualTo(FAIL);
        // Octets 18..21 of a ULPDU we sent: the Terminate control field 0x20 0x07, no M, D, R.
        assertThat(noRtr.received).anySatisfy(u -> assertThat(Arrays.copyOfRange(u, 0, 22)).containsExactly(
                0x41, 0x47, 0, 0, 0, 0, 0, 0, 0, 2, 0, 0, 0, 1, 0, 0, 0, 0, 0x20, 0x07, 0, 0));
    }

    /**
     * A crc-honoured failure seen on the mpa-revision-2 connection (MPA-R-026: a wrong CRC32c
     * under our C=1) stays a failure when the connects after it are refused, and the run exits 1.
     */
    @Test
    void aCrcFailureStaysWhenTheConnectsAfterItAreRefused() throws Exception {
        ProbeReport report = probe(peer(ScriptedAnswers::enhancedReply, ScriptedAnswers::conformant).badCrc()
                .closesListenerAfter(1));

        Observation crc = report.observation("crc-honoured");
        assertThat(crc.verdict()).as(report.toTable()).isEqualTo(FAIL);
        assertThat(crc.requirement()).isEqualTo("MPA-R-026");
        assertThat(crc.observed()).startsWith("its FPDU failed our CRC check");
        assertThat(report.observation("crc-required").observed()).startsWith("connection failed");
        assertEveryDocumentedProbeIsThere(report);
        assertThat(report.exitStatus()).isEqualTo(1);
    }

    /**
     * crc-required (MPA-R-023) is kept as soon as its connection is closed: the C=1 retry after
     * it, refused at connect, costs only crc-honoured.
     */
    @Test
    void crcRequiredStaysWhenTheRetryCannotConnect() throws Exception {
        ProbeReport report = probe(peer(r -> r.revision() >= 2 ? null : plainReply(r), ScriptedAnswers::conformant)
                .closesListenerAfter(2));

        Observation required = report.observation("crc-required");
        assertThat(required.verdict()).as(report.toTable()).isEqualTo(INFO);
        assertThat(required.observed()).isEqualTo("does not require CRC: answers C=0 to our C=0");
        assertThat(report.observation("crc-honoured").observed()).startsWith("connection failed");
    }

    /**
     * RFC 6581 §10 asks for an enhanced answer to an enhanced Request and §9.2 for A echoed
     * (MPA2-R-008): R=1 waives neither. A revision 1 Reply with R=1, or an enhanced one with A=0
     * and R=1, to the peer-to-peer Request fails; a Reply that is not MPA at all to an rtr-*
     * Request fails MPA2-R-012 instead of passing for a refusal.
     */
    @Test
    void aRejectToThePeerToPeerRequestMustStillBeEnhancedAndEchoA() throws Exception {
        java.util.function.Predicate<MpaStartupFrame> peerToPeer = r -> r.enhancedData() != null
                && r.enhancedData().peerToPeer();
        ProbeReport revision1 = probe(peer(r -> peerToPeer.test(r)
                ? MpaStartupFrame.reply(false, r.crc(), true, 1, null, new byte[0]) : enhancedReply(r),
                ScriptedAnswers::conformant));
        Observation echo = revision1.observation("control-flag-a-echo");
        assertThat(echo.verdict()).as(revision1.toTable()).isEqualTo(FAIL);
        assertThat(echo.observed()).startsWith("peer-to-peer Request: rejected: Reply R=1, rev 1");

        ProbeReport aClear = probe(peer(r -> peerToPeer.test(r) ? MpaStartupFrame.reply(false, r.crc(), true, 2,
                new EnhancedConnectionData(false, Set.of(), 4, 4), new byte[0]) : enhancedReply(r),
                ScriptedAnswers::conformant));
        assertThat(aClear.observation("control-flag-a-echo").verdict()).as(aClear.toTable()).isEqualTo(FAIL);
        assertThat(aClear.observation("rtr-options").verdict()).isEqualTo(INCONCLUSIVE);

        ProbeReport garbled = probe(peer(ScriptedAnswers::enhancedReply, ScriptedAnswers::conformant)
                .corruptsReplyTo(peerToPeer));
        for (RtrType rtr : RtrType.values()) {
            Observation o = garbled.observation("rtr-" + rtr.name().toLowerCase(java.util.Locale.ROOT));
            assertThat(o.verdict()).as(garbled.toTable()).isEqualTo(FAIL);
            assertThat(o.observed()).startsWith("not accepted: malformed Reply");
        }
    }

    /**
     * Terminates judged by their rules: L=0 is a warning under RDMAP-R-025 (one segment with L
     * set is practice, not RFC text); a Terminate too short for its control field fails
     * RDMAP-R-026 (no layer, type, code) and its layout RDMAP-R-040, not "no Terminate" under
     * RDMAP-R-036; a Write refused with another DDP Tagged Buffer code (1/1/01) warns under
     * DDP-R-049, as the Read refused with another Remote Protection code does.
     */
    @Test
    void terminatesWithLClearCutShortOrAnotherTaggedBufferCode() throws Exception {
        byte[] cutShort = ScriptedAnswers.segment(new org.iwarp4j.ddp.UntaggedHeader(true, 0x47, 0, 2, 1, 0),
                new byte[] {0x01, 0x10});
        ProbeReport report = probe(peer(ScriptedAnswers::enhancedReply, u -> {
            if (isBogusWrite(u)) {
                return ScriptedAnswers.terminate(TerminateMessage.of(TerminateReason.ddp(1, 1), true, true, false, 0,
                        u.length, Arrays.copyOf(u, 14), null));
            }
            return isBogusRead(u) ? cutShort : conformant(u);
        }));
        Observation write = report.observation("terminate-write-invalid-stag");
        assertThat(write.verdict()).as(report.toTable()).isEqualTo(WARN);
        assertThat(write.requirement()).isEqualTo("DDP-R-049");
        assertThat(write.facts()).containsEntry("error_code", 1);
        Observation read = report.observation("terminate-read-invalid-stag");
        assertThat(read.verdict()).isEqualTo(FAIL);
        assertThat(read.requirement()).isEqualTo("RDMAP-R-026");
        assertThat(read.observed()).startsWith("a malformed Terminate: Terminate too short");
        Observation readLayout = report.observation("terminate-read-invalid-stag-layout");
        assertThat(readLayout.verdict()).isEqualTo(FAIL);
        assertThat(readLayout.observed()).isEqualTo("the Terminate Control field is cut short: 2 of 4 octets");

        ProbeReport lClear = probe(peer(ScriptedAnswers::enhancedReply, u -> {
            byte[] answer = conformant(u);
            if (answer != null && (isBogusWrite(u) || isBogusRead(u))) {
                answer[0] &= ~0x40;  // the L bit of the DDP control octet
            }
            return answer;
        }));
        for (String p : List.of("terminate-write-invalid-stag", "terminate-read-invalid-stag")) {
            Observation o = lClear.observation(p);
            assertThat(o.verdict()).as(p + "\n" + lClear.toTable()).isEqualTo(WARN);
            assertThat(o.requirement()).isEqualTo("RDMAP-R-025");
            assertThat(o.facts()).containsEntry("terminate_last", false).doesNotContainKey("terminate_framing");
            assertThat(lClear.observation(p + "-layout").verdict()).isEqualTo(PASS);
        }
    }

    /**
     * The cap on the peer's own Sends (MPA-R-061) is per wait: a peer that sends five before each
     * answer gets the Read RTR and the zero-length Read after it both answered on one connection,
     * ten Sends passed over in all.
     */
    @Test
    void theCapOnThePeersSendsIsPerWait() throws Exception {
        ProbeReport report = probe(peer(ScriptedAnswers::enhancedReply, ScriptedAnswers::conformant)
                .sendsBeforeEachAnswer(ScriptedAnswers.send(1, "hello".getBytes(StandardCharsets.US_ASCII)), 5));

        Observation read = report.observation("rtr-read");
        assertThat(read.verdict()).as(report.toTable()).isEqualTo(PASS);
        assertThat(read.facts()).containsEntry("peer_sends_skipped", 10);
    }
}
