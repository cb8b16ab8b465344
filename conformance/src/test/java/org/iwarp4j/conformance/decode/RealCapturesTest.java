package org.iwarp4j.conformance.decode;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.InputStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Collectors;
import org.iwarp4j.testkit.TestData;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Every capture in {@code testdata/captures/} (Linux siw on both ends) decoded: what it must find,
 * and exactly which rules siw breaks in them.
 */
class RealCapturesTest {

    private static Path capture(String name) {
        return TestData.root().resolve("captures").resolve(name);
    }

    private static DecodeReport decode(String name) throws Exception {
        return CaptureDecoder.decode(capture(name), DecodeOptions.DEFAULT);
    }

    private static List<String> ids(DecodeReport r) {
        return r.violations().stream().map(Violation::requirementId).collect(Collectors.toList());
    }

    private static String text(DecodeReport r, boolean verbose) {
        StringWriter s = new StringWriter();
        ReportWriter.text(r, new PrintWriter(s), verbose);
        return s.toString();
    }

    @Test
    void everyCaptureOfTheDirectoryIsCovered() throws Exception { // nfs4-rdma-siw.pcap: Nfs4SiwCaptureTest
        try (var files = Files.list(TestData.root().resolve("captures"))) {
            assertThat(files.map(p -> p.getFileName().toString()).filter(n -> n.endsWith(".pcap")).sorted())
                    .containsExactly("ib_read_bw-siw.pcap", "ib_send_bw-siw.pcap", "ib_write_bw-siw.pcap",
                            "nfs3-rdma-siw-lost.pcap", "nfs3-rdma-siw.pcap", "nfs4-rdma-siw.pcap", "rping-siw-crc.pcap",
                            "rping-siw.pcap");
        }
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource({"rping-siw.pcap, off", "rping-siw-crc.pcap, on"})
    void rpingIsClean(String name, String crc) throws Exception {
        DecodeReport r = decode(name);
        assertThat(r.violations()).isEmpty();
        assertThat(r.exitStatus()).isZero();
        assertThat(r.connections()).singleElement().satisfies(c -> {
            assertThat(c.found()).isEqualTo("MPA Request");
            assertThat(c.negotiated()).startsWith("rev 2, CRC " + crc + ", markers I>R off R>I off");
            assertThat(c.missingOctets()).isZero();
        });
        List<String> lines = r.units().stream().map(DecodedUnit::summary).collect(Collectors.toList());
        String flags = crc.equals("on") ? "0x50 (C S)" : "0x10 (S)";
        assertThat(lines.get(0)).isEqualTo("MPA Request rev 2 flags " + flags + " PD 4: IRD 1 ORD 1");
        assertThat(lines.get(1)).isEqualTo("MPA Reply rev 2 flags " + flags + " PD 4: IRD 1 ORD 1");
        // rping -C 10: ten rounds of Send, Read Request and Response, Write, Send each way.
        assertThat(lines.stream().filter(l -> l.startsWith("Read Request QN 1 MSN ")).count()).isEqualTo(10);
        assertThat(lines.stream().filter(l -> l.startsWith("Read Response ") && l.endsWith(" len 64 L")).count())
                .isEqualTo(10);
        assertThat(lines.stream().filter(l -> l.startsWith("Write ")).count()).isEqualTo(10);
        assertThat(lines).anySatisfy(l -> assertThat(l).startsWith("Read Request QN 1 MSN 10 MO 0 len 28 L sink "));
    }

    /**
     * perftest's parameter exchange: siw sends a 2-octet Send with pad octets {@code 00 40}, both ways
     * (RFC 5044 §4.1: pad octets are sent as zero, MPA-R-011). Nothing else is wrong.
     */
    @ParameterizedTest(name = "{0}")
    @CsvSource({"ib_write_bw-siw.pcap, 16, 17", "ib_read_bw-siw.pcap, 16, 17", "ib_send_bw-siw.pcap, 14, 15"})
    void perftestShowsSiwsNonZeroPad(String name, long first, long second) throws Exception {
        DecodeReport r = decode(name);
        assertThat(ids(r)).containsExactly("MPA-R-011", "MPA-R-011");
        assertThat(r.violations()).extracting(Violation::frame).containsExactly(first, second);
        assertThat(r.violations()).allSatisfy(v -> {
            assertThat(v.connection()).isZero();
            assertThat(v.detail()).isEqualTo("pad 0040 is not zero");
        });
        assertThat(r.connections()).hasSize(2);
        assertThat(r.exitStatus()).isEqualTo(1);
    }

    /**
     * The NFS capture: every RPC paired, names decoded; siw's RDMA Read Responses carry ULPDUs of 65474
     * octets, above the 64768 that MPA allows whatever the MSS (RFC 5044 §3, MPA-R-006).
     */
    @Test
    void nfsShowsSiwsOversizedUlpdus() throws Exception {
        DecodeReport r = decode("nfs3-rdma-siw.pcap");
        assertThat(ids(r)).containsExactly("MPA-R-006", "MPA-R-006");
        assertThat(r.violations()).allSatisfy(v -> assertThat(v.detail()).isEqualTo("ULPDU_Length 65474 > 64768"));
        assertThat(r.notes()).isEmpty();
        List<String> lines = r.units().stream().map(DecodedUnit::summary).collect(Collectors.toList());
        assertThat(lines).anySatisfy(l -> assertThat(l).contains("RPC-over-RDMA CM v1 send 4096 recv 4096"));
        assertThat(lines).anySatisfy(l -> assertThat(l).contains("| CALL NFSv3 WRITE").contains("read[ @120 "));
        assertThat(lines).anySatisfy(l -> assertThat(l).contains("| CALL NFSv3 READ").contains("write[ {"));
        assertThat(lines).anySatisfy(l -> assertThat(l).startsWith("Send with Invalidate ")
                .contains("REPLY to NFSv3 WRITE"));
        assertThat(lines.stream().filter(l -> l.contains("| REPLY to NFSv3 READ ")).count()).isEqualTo(2);
        // READDIRPLUS's Reply came in its Reply chunk (RDMA_NOMSG): put together from the three Writes into it and
        // read like an inline one; tshark (frame 144) shows xid 0x212f65b5 and Status NFS3_OK too.
        assertThat(lines).anySatisfy(l -> assertThat(l).contains("| RDMA_NOMSG xid 0x212f65b5 ")
                .endsWith("| REPLY to NFSv3 READDIRPLUS (frame 139) SUCCESS NFS3_OK"));
        assertThat(lines).anySatisfy(l -> assertThat(l).contains("| REPLY to NFSv3 WRITE (frame 42) SUCCESS NFS3_OK"));
        assertThat(r.connections()).allSatisfy(c -> assertThat(c.negotiated())
                .endsWith("RPC-over-RDMA inline 4096/4096"));
        // Every RDMA Write lands in a chunk segment of an outstanding Call, every Read Request reads a
        // Read chunk segment (RPC-R-081, RPC-R-082): the decoder names which.
        List<String> writes = lines.stream().filter(l -> l.startsWith("Write ")).collect(Collectors.toList());
        List<String> reads = lines.stream().filter(l -> l.startsWith("Read Request ")).collect(Collectors.toList());
        assertThat(writes).isNotEmpty().allSatisfy(l -> assertThat(l)
                .containsPattern(" -> xid 0x[0-9a-f]{8} (write chunk 0|reply chunk)$"));
        assertThat(writes).anySatisfy(l -> assertThat(l).endsWith(" write chunk 0"));
        assertThat(reads).hasSize(2).allSatisfy(l -> assertThat(l).containsPattern(" -> xid 0x[0-9a-f]{8} read chunk"
                + " @120$"));
        // Each Read Response carries the label of the Read Request it answers.
        List<String> responses = lines.stream().filter(l -> l.startsWith("Read Response ")).collect(Collectors.toList());
        assertThat(responses).isNotEmpty().allSatisfy(l -> assertThat(l).containsPattern(" -> xid 0x[0-9a-f]{8} read"
                + " chunk @120$"));
        for (String read : reads) {
            String label = read.substring(read.indexOf(" -> xid "));
            assertThat(responses).anySatisfy(l -> assertThat(l).endsWith(" L" + label));
        }
    }

    /**
     * Four segments removed (editcap): each gap is reported with its size and where decoding resumed;
     * the rest decodes, with the same single siw violation that survives in the remaining frames.
     */
    @Test
    void lostSegmentsAreReportedAndTheRestDecodes() throws Exception {
        DecodeReport whole = decode("nfs3-rdma-siw.pcap");
        DecodeReport r = decode("nfs3-rdma-siw-lost.pcap");
        List<Note> gaps = r.notes().stream().filter(n -> n.text().contains("octets missing from the capture"))
                .collect(Collectors.toList());
        assertThat(gaps).hasSize(3);
        assertThat(gaps).allSatisfy(n -> assertThat(n.text()).contains("decoding resumes at offset"));
        assertThat(gaps.get(0).connection()).isZero();
        assertThat(gaps.get(0).direction()).isEqualTo("I>R");
        assertThat(gaps.subList(1, 3)).allSatisfy(n -> {
            assertThat(n.connection()).isEqualTo(1);
            assertThat(n.direction()).isEqualTo("R>I");
            assertThat(n.text()).startsWith("20500 octets missing");
        });
        assertThat(r.connections()).extracting(ConnectionSummary::missingOctets).containsExactly(94284L, 41000L);
        assertThat(ids(r)).containsExactly("MPA-R-006");
        // Every RPC still decodes: all Calls and Replies of the whole capture are there.
        assertThat(rpcLines(r)).isEqualTo(rpcLines(whole)).hasSizeGreaterThan(50);
        assertThat(r.units().size()).isLessThan(whole.units().size());
        assertThat(text(r, false)).contains("-- frame 51 conn 0 I>R 94284 octets missing");
    }

    private static List<String> rpcLines(DecodeReport r) {
        return r.units().stream().map(DecodedUnit::summary).filter(s -> s.contains(" | "))
                // frame numbers differ: the lost capture has four frames fewer
                .map(s -> s.substring(s.indexOf(" | ")).replaceAll("\\(frame \\d+\\)", ""))
                .collect(Collectors.toList());
    }

    /** A byte of a Send's payload flipped in rping-siw-crc.pcap: exactly one CRC error, in that frame. */
    @Test
    void aCorruptedCrcCaptureGivesExactlyTheCrcViolation() throws Exception {
        byte[] file = Files.readAllBytes(capture("rping-siw-crc.pcap"));
        // Frame 8 is the Initiator's first Send (16 octets, no pad): flip the last payload octet before the CRC.
        int pos = 24;
        for (int frame = 1; frame < 8; frame++) {
            pos += 16 + ByteBuffer.wrap(file, pos + 8, 4).order(ByteOrder.LITTLE_ENDIAN).getInt();
        }
        int length = ByteBuffer.wrap(file, pos + 8, 4).order(ByteOrder.LITTLE_ENDIAN).getInt();
        file[pos + 16 + length - 5] ^= 0x01;
        DecodeReport r = CaptureDecoder.decode(file, DecodeOptions.DEFAULT);
        assertThat(ids(r)).containsExactly("MPA-R-030");
        assertThat(r.violations().get(0).frame()).isEqualTo(8);
        assertThat(r.exitStatus()).isEqualTo(1);
    }

    @Test
    void oneConnectionOnly() throws Exception {
        DecodeReport r = CaptureDecoder.decode(capture("nfs3-rdma-siw.pcap"), DecodeOptions.DEFAULT.withConnection(1));
        assertThat(r.connections()).extracting(ConnectionSummary::index).containsExactly(1);
        assertThat(r.units()).allSatisfy(u -> assertThat(u.connection()).isEqualTo(1));
        assertThat(r.violations()).isEmpty(); // the oversized ULPDUs are in connection 0
    }

    @Test
    void verboseAndJsonCarryTheFields() throws Exception {
        DecodeReport r = decode("rping-siw-crc.pcap");
        String verbose = text(r, true);
        assertThat(verbose).contains("mpa: frame=Request key=MPA ID Req Frame flags=0x50 M=false C=true R=false S=true"
                + " rev=2 pdLength=4 ird=1 ord=1 peerToPeer=false rtr=[]");
        assertThat(verbose).containsPattern("rdmap: control=0x41 version=1 opcode=RDMA_READ_REQUEST sinkStag=0x");
        StringWriter json = new StringWriter();
        ReportWriter.json(r, new PrintWriter(json));
        assertThat(json.toString()).startsWith("{\n  \"format\": \"pcap\",\n  \"frames\": 91,")
                .contains("\"crcComputed\": \"0x").contains("\"violations\": []").contains("\"exitStatus\": 0");
    }

    /**
     * The JSON is written as it goes, not built whole first: octet for octet what the whole-string
     * writer printed for a capture with a gap, notes and violations (the resource is its output).
     */
    @Test
    void jsonWrittenAsItGoesIsWhatTheWholeStringWriterPrinted() throws Exception {
        String expected;
        try (InputStream in = RealCapturesTest.class.getResourceAsStream("nfs3-rdma-siw-lost.json")) {
            expected = new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
        StringWriter json = new StringWriter();
        ReportWriter.json(decode("nfs3-rdma-siw-lost.pcap"), new PrintWriter(json));
        assertThat(json.toString()).isEqualTo(expected);
    }
}
