package org.iwarp4j.interop.siw;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.Set;
import java.util.stream.Collectors;
import org.iwarp4j.conformance.decode.CaptureDecoder;
import org.iwarp4j.conformance.decode.DecodeOptions;
import org.iwarp4j.conformance.decode.DecodeReport;
import org.iwarp4j.conformance.decode.DecodedUnit;
import org.iwarp4j.conformance.decode.UnreadableCaptureException;
import org.iwarp4j.conformance.decode.Violation;
import org.iwarp4j.conformance.probe.internal.ScriptedConnection;
import org.iwarp4j.conformance.probe.internal.ScriptedConnection.Outcome;
import org.iwarp4j.conformance.probe.internal.ScriptedConnection.Received;
import org.iwarp4j.conformance.probe.internal.ScriptedConnection.StartupAnswer;
import org.iwarp4j.conformance.probe.internal.Wire;
import org.iwarp4j.interop.peer.BackgroundCommand;
import org.iwarp4j.interop.peer.GuestCapture;
import org.iwarp4j.interop.peer.LinuxPeer;
import org.iwarp4j.mpa.EnhancedConnectionData;
import org.iwarp4j.mpa.MpaStartupFrame;
import org.iwarp4j.rdmap.internal.wire.ReadRequestHeader;
import org.junit.jupiter.api.Test;

/**
 * Issue 17: Linux 6.1 siw's Terminate for an MPA CRC error, provoked and recorded. With CRC
 * negotiated (our Request C=1, siw mirrors it), a zero-length Read Request shows the connection
 * works, then a zero-length Send goes out with its CRC field damaged. siw checks the CRC when the
 * FPDU ends ({@code siw_get_trailer}) and terminates with LLP / MPA / 0x02 — written from the
 * bit-field {@code struct iwarp_terminate}, so on x86 the layer and type nibbles arrive swapped.
 * tcpdump in the guest records the connection; {@code iwarp decode} reads the file and must name
 * siw's Terminate "looks like siw's swapped layer/type: LLP CRC error".
 */
class SiwCrcErrorTerminateInteropTest extends SiwInteropTest {

    static final Duration TIMEOUT = Duration.ofSeconds(60);

    SiwCrcErrorTerminateInteropTest(LinuxPeer peer) {
        super(peer);
    }

    @Test
    void siwsCrcErrorTerminateIsNamedByDecode() throws Exception {
        CrcMode.OURS.applyTo(peer);
        int port = GuestPorts.next();
        String file = "/tmp/iwarp4j-crc-terminate-" + port + ".pcap";
        byte[] terminate;
        byte[] capture;
        // --immediate-mode: without it libpcap hands packets over a buffer block at a time (up to a
        // second late), and on a quick run tcpdump was stopped before it had written any
        try (BackgroundCommand dump = peer.start("exec tcpdump -i any -s 0 -U --immediate-mode -w " + file
                + " 'tcp port " + port + "' 2>&1");
             BackgroundCommand rping = peer.start("exec rping -s -P -a " + peer.peerAddress().getHostAddress()
                     + " -p " + port)) {
            dump.awaitLine("listening on", TIMEOUT);
            peer.awaitListening(port, TIMEOUT);
            InetSocketAddress server = peer.forwardedPort(port);
            try (ScriptedConnection c = ScriptedConnection.open(server, TIMEOUT)) {
                c.sendRaw(ScriptedConnection.encode(MpaStartupFrame.request(false, true, 2,
                        new EnhancedConnectionData(false, Set.of(), 4, 4), new byte[0])));
                StartupAnswer answer = c.readReply();
                assertThat(answer.outcome()).as(answer.detail()).isEqualTo(Outcome.RECEIVED);
                assertThat(answer.reply().reject()).isFalse();
                assertThat(answer.reply().crc()).as("siw mirrors our C=1").isTrue();
                c.fullOperation(true, false, false);

                // A zero-length Read Request (never checked, RFC 5040 §5.2.1): siw's answer shows the
                // connection in Full Operation. siw 6.1 may leave an FPDU right after its Reply unread
                // until more data comes (docs/siw-interop.md): a zero-length Write wakes it.
                c.send(Wire.readRequest(1, new ReadRequestHeader(1, 0, 0, 1, 0)));
                Received pong = c.next(Duration.ofSeconds(2));
                if (pong.outcome() == Outcome.TIMEOUT) {
                    c.send(Wire.write(1, 0, new byte[0]));
                    pong = c.next(TIMEOUT);
                }
                assertThat(pong.outcome()).as(pong.detail()).isEqualTo(Outcome.RECEIVED);

                byte[] bad = c.frame(Wire.zeroLengthSend(1));
                bad[bad.length - 1] ^= 0x5a; // the CRC field's last octet
                c.sendRaw(bad);
                Received r = c.next(TIMEOUT);
                assertThat(r.outcome()).as(r.detail()).isEqualTo(Outcome.RECEIVED);
                terminate = r.ulpdu();
            }
            capture = GuestCapture.readOnceItHolds(peer, file, SiwCrcErrorTerminateInteropTest::holdsTheTerminate,
                    TIMEOUT);
            rping.kill();
            dump.kill();
        }
        // siw's Terminate: untagged, QN 2, RDMAP opcode 7; Terminate Control 02 02 (LLP 0x2 in the
        // low nibble where RFC 5040 has the layer in the high one), code 0x02.
        assertThat(terminate[1] & 0x0f).as("RDMAP opcode").isEqualTo(7);
        assertThat(terminate[18] & 0xff).as("control octet 0").isEqualTo(0x02);
        assertThat(terminate[19] & 0xff).as("control octet 1: error code").isEqualTo(0x02);
        assertThat(terminate).as("no header echoed, M/D/R clear: the control field alone").hasSize(18 + 4);
        assertThat(terminate[20] | terminate[21]).isZero();

        peer.exec("rm -f " + file).requireSuccess();
        DecodeReport report = CaptureDecoder.decode(capture, DecodeOptions.DEFAULT);
        String units = report.units().stream().map(DecodedUnit::summary).collect(Collectors.joining("\n"));
        assertThat(report.connections()).as(units).hasSize(1);
        assertThat(report.units()).as(units).anySatisfy(u -> assertThat(u.summary())
                .startsWith("Terminate QN 2 MSN 1 MO 0 ")
                .endsWith("(not defined by RFC 5040/5041/5044/6581; looks like siw's swapped layer/type: LLP CRC"
                        + " error)"));
        // Our damaged FPDU and siw's swapped control field: nothing else in the capture breaks a rule.
        assertThat(report.violations()).as(units).extracting(Violation::requirementId)
                .containsExactly("MPA-R-030", "RDMAP-R-026");
        assertThat(report.violations()).extracting(Violation::direction).containsExactly("I>R", "R>I");
        System.out.println(units);
        report.violations().forEach(System.out::println);
    }

    /** Whether a capture (perhaps still being written) already holds siw's Terminate. */
    private static boolean holdsTheTerminate(byte[] capture) {
        try {
            return CaptureDecoder.decode(capture, DecodeOptions.DEFAULT).units().stream()
                    .anyMatch(u -> u.summary().startsWith("Terminate QN 2 "));
        } catch (UnreadableCaptureException | RuntimeException partial) {
            return false;
        }
    }
}
