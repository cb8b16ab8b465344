package org.iwarp4j.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** {@code iwarp demo} end to end over loopback: exit status, what it prints, and its numbers. */
class MpaDemoCommandTest {

    private final StringWriter out = new StringWriter();
    private final StringWriter err = new StringWriter();

    private int iwarp(String... args) {
        return IwarpCommand.run(new PrintWriter(out, true), new PrintWriter(err, true), args);
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', value = {
            "--mpa-rev 2 | revision 2 (RFC 6581), CRC32c on | off",
            "--mpa-rev 1 --no-crc | revision 1 (RFC 5044), CRC32c off | off",
            "--crc=accept | CRC32c off | off",
            "--crc | CRC32c on | off",
            "--markers --max-ulpdu 4096 | CRC32c on, markers Initiator->Responder on | on"})
    void negotiatesExchangesAndVerifies(String options, String negotiated, String markers) {
        String[] args = ("demo -n 40 " + options).split(" ");
        assertThat(iwarp(args)).as(err.toString()).isZero();
        String text = out.toString();
        assertThat(text).contains(negotiated).contains("Responder->Initiator " + markers);
        assertThat(text).contains("40 of").contains("every octet verified");
        assertThat(text).contains("Initiator -> Responder: 40 FPDUs").contains("40 FPDUs received");
        assertThat(text).contains("Responder received \"hello from the iwarp4j Initiator\"");
    }

    @Test
    void wireOctetsAreCountedWithFramingOverhead() {
        // 40 ULPDUs of 100 octets, no markers: 2 + 100 + 2 pad + 4 CRC = 108 octets each.
        assertThat(iwarp("demo", "-n", "40", "-s", "100")).isZero();
        assertThat(out.toString()).contains("Initiator -> Responder: 40 FPDUs, 4320 octets on the wire sent");
    }

    @Test
    void rejectsBadOptionsWithUsageStatus() {
        assertThat(iwarp("demo", "-s", "70000")).isEqualTo(2);
        assertThat(err.toString()).contains("--size");
        assertThat(iwarp("demo", "--no-such-option")).isEqualTo(2);
    }

    @Test
    void helpListsTheDemo() {
        assertThat(iwarp("--help")).isZero();
        assertThat(out.toString()).contains("demo");
    }
}
