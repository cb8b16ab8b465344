package org.iwarp4j.conformance.decode;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The JSON form's string escapes, which no capture in testdata needs: as the whole-string writer made them. */
class ReportWriterTest {

    @Test
    void stringsAreEscapedAroundTheOctetsThatNeedNone() {
        String format = "\"q\" back\\slash\nnew\rret\ttab\u0001ctl\u001fé end";
        StringWriter json = new StringWriter();
        ReportWriter.json(new DecodeReport(format, 0, 0, List.of(), List.of(), List.of(), List.of()),
                new PrintWriter(json));
        assertThat(json.toString()).isEqualTo("{\n  \"format\": \"\\\"q\\\" back\\\\slash\\nnew\\rret\\ttab\\u0001ctl"
                + "\\u001fé end\",\n  \"frames\": 0,\n  \"tcpConnections\": 0,\n  \"connections\": [],\n  \"units\": [],\n"
                + "  \"violations\": [],\n  \"notes\": [],\n  \"exitStatus\": 0\n}" + System.lineSeparator());
    }
}
