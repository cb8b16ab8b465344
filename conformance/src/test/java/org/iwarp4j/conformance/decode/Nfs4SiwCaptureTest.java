package org.iwarp4j.conformance.decode;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.BufferedReader;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.iwarp4j.testkit.TestData;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * {@code testdata/captures/nfs4-rdma-siw.pcap}: the Linux client and knfsd in the peer VM, NFSv4.2 over
 * RPC-over-RDMA on siw, the file written (Read chunks), read back (Write chunks), {@code ls -l} (READDIR),
 * and a read delegation recalled by knfsd with CB_COMPOUND in the backward direction (RFC 8167) on the same
 * connection. The names of every procedure and operation are compared with tshark's, checked in as
 * {@code nfs4-rdma-siw-ops.psv} next to this class (its first lines are the command that made it), so the
 * test does not need tshark.
 */
class Nfs4SiwCaptureTest {

    /** The file of the capture: 307200 octets, written by two WRITEs and read by two READs. */
    private static final long FILE_SIZE = 307200;

    private record Row(long frame, String xid, String transport, boolean call, String procedure,
                       List<String> operations) {
    }

    private static DecodeReport report;
    private static List<Row> tshark;

    @BeforeAll
    static void decode() throws Exception {
        report = CaptureDecoder.decode(TestData.root().resolve("captures").resolve("nfs4-rdma-siw.pcap"),
                DecodeOptions.DEFAULT);
        tshark = new ArrayList<>();
        try (InputStream in = Nfs4SiwCaptureTest.class.getResourceAsStream("nfs4-rdma-siw-ops.psv");
             BufferedReader r = new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8))) {
            for (String line = r.readLine(); line != null; line = r.readLine()) {
                if (line.startsWith("#")) {
                    continue;
                }
                String[] f = line.split("\\|", -1);
                tshark.add(new Row(Long.parseLong(f[0]), f[1], f[2], f[3].equals("Call"), f[4],
                        f[5].isEmpty() ? List.of() : Arrays.asList(f[5].split(" "))));
            }
        }
    }

    /**
     * The unit that carries the RPC message tshark shows in that row: the same XID, Call or Reply, and the same
     * frame, except for the WRITE Calls, which tshark shows at the frame that completed their Read chunk: the
     * decoder labels that last Read Response with the same Call.
     */
    private static DecodedUnit rpcUnit(Row row) {
        String marker = "xid " + row.xid() + " ";
        List<DecodedUnit> u = report.units().stream()
                .filter(d -> d.summary().contains(marker) && d.summary().contains(row.call() ? " | CALL " : " | REPLY"))
                .collect(Collectors.toList());
        assertThat(u).as("%s %s", row.call() ? "Call" : "Reply", row.xid()).hasSize(1);
        DecodedUnit d = u.get(0);
        if (row.transport().isEmpty()) {
            assertThat(row.operations()).contains("WRITE");
            assertThat(d.frame()).isLessThan(row.frame());
            assertThat(report.units()).anySatisfy(r -> {
                assertThat(r.frame()).isEqualTo(row.frame());
                assertThat(r.summary()).startsWith("Read Response ")
                        .endsWith(" L -> xid " + row.xid() + " read chunk @188");
            });
        } else {
            assertThat(d.frame()).as("%s", d.summary()).isEqualTo(row.frame());
        }
        return d;
    }

    private static List<String> lines(int connection, String prefix) {
        return report.units().stream().filter(u -> u.connection() == connection)
                .map(DecodedUnit::summary).filter(t -> t.startsWith(prefix)).collect(Collectors.toList());
    }

    /**
     * Nothing of RFC 5044, 5041, 5040, 8166 or 8267 is broken but the known siw behaviour (the NFSv3 capture
     * shows it too): RDMA Read Responses with 65474-octet ULPDUs, above MPA's 64768 (RFC 5044 §3, MPA-R-006).
     */
    @Test
    void onlySiwsOversizedUlpdusAreViolations() {
        assertThat(report.violations()).extracting(Violation::requirementId).containsExactly("MPA-R-006", "MPA-R-006");
        assertThat(report.violations()).extracting(Violation::frame).containsExactly(102L, 105L);
        assertThat(report.violations()).allSatisfy(v -> {
            assertThat(v.connection()).isZero();
            assertThat(v.direction()).isEqualTo("I>R");
            assertThat(v.detail()).isEqualTo("ULPDU_Length 65474 > 64768");
        });
        assertThat(lines(0, "Read Response ").stream().filter(l -> l.contains(" len 65460")).count()).isEqualTo(2);
        assertThat(report.notes()).isEmpty();
        assertThat(report.exitStatus()).isEqualTo(1);
        assertThat(report.connections()).hasSize(2).allSatisfy(c -> {
            assertThat(c.missingOctets()).isZero();
            assertThat(c.negotiated()).startsWith("rev 2, CRC off").endsWith("RPC-over-RDMA inline 4096/4096");
        });
    }

    /** The RPC messages are tshark's, no more, no fewer. */
    @Test
    void theRpcMessagesAreTsharks() {
        assertThat(tshark).hasSize(134);
        long decoded = report.units().stream()
                .filter(u -> u.summary().contains(" | CALL ") || u.summary().contains(" | REPLY")).count();
        assertThat(decoded).isEqualTo(tshark.size());
        assertThat(tshark).allSatisfy(Nfs4SiwCaptureTest::rpcUnit);
        assertThat(tshark.stream().filter(r -> r.transport().isEmpty()).map(Row::frame)).containsExactly(107L, 108L);
    }

    /**
     * Every Call and every Reply carries the operation names tshark gives, in order, and every Reply each
     * operation's status; the COMPOUND's status is its last operation's (RFC 8881 §16.2.3). Replies that
     * came in a Reply chunk (RDMA_NOMSG) are put together from the RDMA Writes into it, as tshark does, and
     * read the same as inline ones.
     */
    @Test
    void everyOperationIsNamedAsTsharkNamesIt() {
        int nomsg = 0;
        for (Row row : tshark) {
            String s = rpcUnit(row).summary();
            String program = row.procedure().startsWith("CB_") ? "NFSv4 callback " : "NFSv4 ";
            if (row.call()) {
                assertThat(s).as("frame %d", row.frame()).contains(" | RDMA_MSG xid " + row.xid() + " ");
                assertThat(s).as("frame %d", row.frame()).endsWith(" | CALL " + program + row.procedure()
                        + (row.operations().isEmpty() ? "" : " minor 2: " + String.join(" ", row.operations())));
            } else if (row.operations().isEmpty()) {
                assertThat(s).as("frame %d", row.frame())
                        .containsPattern(" \\| REPLY to " + program + row.procedure() + " \\(frame \\d+\\) SUCCESS$");
            } else {
                if (row.transport().equals("RDMA_NOMSG")) {
                    nomsg++;
                    assertThat(s).as("frame %d", row.frame()).contains(" | RDMA_NOMSG xid " + row.xid() + " ");
                }
                List<String> ops = row.operations().stream().map(o -> o.replace("=NFS4_OK", " OK").replace('=', ' '))
                        .collect(Collectors.toList());
                String last = row.operations().get(row.operations().size() - 1);
                String status = last.substring(last.indexOf('=') + 1);
                assertThat(s).as("frame %d", row.frame()).containsPattern(" \\| REPLY to " + program
                        + row.procedure() + " \\(frame \\d+\\) SUCCESS " + status + ": "
                        + Pattern.quote(String.join(", ", ops)) + "$");
            }
        }
        // EXCHANGE_ID twice per connection, the OPENs and the READDIR: their Replies exceed the inline threshold.
        assertThat(nomsg).isEqualTo(7);
        assertThat(report.units()).filteredOn(u -> u.summary().contains(" | RDMA_NOMSG "))
                .hasSize(7).allSatisfy(u -> assertThat(u.layers().get("rpc")).containsKey("replyChunkOctets"));
        assertThat(tshark.stream().filter(r -> r.operations().contains("LOOKUP=NFS4ERR_NOENT")).count()).isEqualTo(1);
    }

    /**
     * WRITE data goes by Read chunk (RFC 8267 §6.1): each WRITE's Call offers one at the data's Position, and
     * the server's RDMA Read Request for it is matched to that Call and chunk (RPC-R-082). The Read Responses
     * bring the whole file, each labelled with the Call whose chunk it answers.
     */
    @Test
    void writeDataIsPulledFromTheReadChunks() {
        List<String> writeCalls = lines(0, "Send ").stream().filter(l -> l.contains("| CALL NFSv4 COMPOUND minor 2:"
                + " SEQUENCE PUTFH WRITE GETATTR")).collect(Collectors.toList());
        assertThat(writeCalls).hasSize(2);
        Map<String, Long> offered = new TreeMap<>();
        Pattern call = Pattern.compile("RDMA_MSG xid (0x[0-9a-f]{8}) cr \\d+ read\\[ @188 0x[0-9a-f]{8}:(\\d+)@0x[0-9a-f]+ \\]");
        for (String l : writeCalls) {
            Matcher m = call.matcher(l);
            assertThat(m.find()).as(l).isTrue();
            offered.put(m.group(1), Long.parseLong(m.group(2)));
        }
        Map<String, Long> requested = new TreeMap<>();
        Pattern request = Pattern.compile(" size (\\d+) source .* -> xid (0x[0-9a-f]{8}) read chunk @188$");
        for (String l : lines(0, "Read Request ")) {
            Matcher m = request.matcher(l);
            assertThat(m.find()).as(l).isTrue();
            requested.merge(m.group(2), Long.parseLong(m.group(1)), Long::sum);
        }
        assertThat(requested).isEqualTo(offered).hasSize(2);
        assertThat(offered.values().stream().mapToLong(Long::longValue).sum()).isEqualTo(FILE_SIZE);
        Map<String, Long> responded = new TreeMap<>();
        Pattern response = Pattern.compile(" len (\\d+)( L)? -> xid (0x[0-9a-f]{8}) read chunk @188$");
        for (String l : lines(0, "Read Response ")) {
            Matcher m = response.matcher(l);
            assertThat(m.find()).as(l).isTrue();
            responded.merge(m.group(3), Long.parseLong(m.group(1)), Long::sum);
        }
        assertThat(responded).isEqualTo(offered);
        assertThat(lines(1, "Read Request ")).isEmpty();
    }

    /**
     * READ data goes by Write chunk (RFC 8267 §6.1): every RDMA Write of the data lands in Write chunk 0 of a
     * READ's Call (RPC-R-081), and the Reply returns that chunk with as many octets as the Writes placed
     * there (RPC-R-028), paired with the READ (ULB-R-018).
     */
    @Test
    void readDataLandsInTheWriteChunks() {
        Map<String, Long> written = new TreeMap<>();
        Pattern write = Pattern.compile(" len (\\d+)( L)? -> xid (0x[0-9a-f]{8}) write chunk 0$");
        for (String l : lines(1, "Write ")) {
            Matcher m = write.matcher(l);
            if (m.find()) {
                written.merge(m.group(3), Long.parseLong(m.group(1)), Long::sum);
            } else {
                assertThat(l).endsWith(" reply chunk");
            }
        }
        Map<String, Long> returned = new TreeMap<>();
        Pattern reply = Pattern.compile("RDMA_MSG xid (0x[0-9a-f]{8}) cr \\d+ write\\[ \\{ 0x[0-9a-f]{8}:(\\d+)@0x[0-9a-f]+ \\} \\]"
                + " \\| REPLY to NFSv4 COMPOUND \\(frame \\d+\\) SUCCESS NFS4_OK: SEQUENCE OK, PUTFH OK, READ OK$");
        for (String l : lines(1, "Send with Invalidate ")) {
            Matcher m = reply.matcher(l);
            if (m.find()) {
                returned.put(m.group(1), Long.parseLong(m.group(2)));
            }
        }
        assertThat(returned).isEqualTo(written).hasSize(2);
        assertThat(returned.values().stream().mapToLong(Long::longValue).sum()).isEqualTo(FILE_SIZE);
        assertThat(lines(0, "Write ")).allSatisfy(l -> assertThat(l).endsWith(" reply chunk"));
    }

    /**
     * The capture without frame 234, the Write that put 212 of the READDIR Reply's 316 octets into the second
     * segment of its Reply chunk (as {@code editcap nfs4-rdma-siw.pcap out.pcap 234} makes it): the gap is
     * reported, and the RDMA_NOMSG Reply says which octets it lacks instead of being decoded; all else reads
     * as before.
     */
    @Test
    void aReplyChunkWriteTheCaptureLacksIsReportedNotGuessed() throws Exception {
        byte[] file = Files.readAllBytes(TestData.root().resolve("captures").resolve("nfs4-rdma-siw.pcap"));
        assertThat(ByteBuffer.wrap(file).order(ByteOrder.LITTLE_ENDIAN).getInt()).isEqualTo(0xa1b2c3d4);
        int pos = 24;
        for (int frame = 1; frame < 234; frame++) {
            pos += 16 + ByteBuffer.wrap(file, pos + 8, 4).order(ByteOrder.LITTLE_ENDIAN).getInt();
        }
        int end = pos + 16 + ByteBuffer.wrap(file, pos + 8, 4).order(ByteOrder.LITTLE_ENDIAN).getInt();
        byte[] without = new byte[file.length - (end - pos)];
        System.arraycopy(file, 0, without, 0, pos);
        System.arraycopy(file, end, without, pos, file.length - end);
        DecodeReport r = CaptureDecoder.decode(without, DecodeOptions.DEFAULT);

        assertThat(report.units()).filteredOn(u -> u.frame() == 234).singleElement().extracting(DecodedUnit::summary)
                .asString().startsWith("Write STag 0x48bedb01 ").contains(" len 212 L -> xid 0x5f79c3c1 reply chunk");
        assertThat(r.violations()).extracting(Violation::requirementId).containsExactly("MPA-R-006", "MPA-R-006");
        assertThat(r.notes()).extracting(Note::text).containsExactly(
                "232 octets missing from the capture at stream offset 314092 (before frame 235); decoding resumes at"
                        + " offset 314324 (frame 235)",
                "the RPC reply in the Reply chunk of xid 0x5f79c3c1 lacks 212 of its 316 octets, first octets 0-211"
                        + " of segment 1 (0x48bedb01@0x5f79c3c17db58058): no RDMA Write in the capture placed them,"
                        + " so the reply is not decoded");
        assertThat(r.units()).filteredOn(u -> u.summary().contains("RDMA_NOMSG xid 0x5f79c3c1 ")).singleElement()
                .extracting(DecodedUnit::summary).asString().endsWith("| REPLY to NFSv4 COMPOUND (frame 232) (Reply"
                        + " chunk: 212 of 316 octets not in the capture; not decoded)");
        // Every other RPC message reads as in the whole capture (frame numbers after 234 are one lower).
        List<String> whole = rpcTexts(report);
        List<String> cut = rpcTexts(r);
        assertThat(cut).hasSameSizeAs(whole);
        for (int i = 0; i < whole.size(); i++) {
            if (whole.get(i).startsWith("RDMA_NOMSG xid 0x5f79c3c1 ")) {
                continue;
            }
            assertThat(cut.get(i)).isEqualTo(whole.get(i));
        }
    }

    private static List<String> rpcTexts(DecodeReport r) {
        return r.units().stream().map(DecodedUnit::summary).filter(s -> s.contains(" | "))
                .map(s -> s.substring(s.indexOf(" | ") + 3).replaceAll("\\(frame \\d+\\)", ""))
                .collect(Collectors.toList());
    }

    /**
     * The backward direction (RFC 8167): knfsd recalls the read delegation with a CB_COMPOUND it sends to
     * the client on the forward channel's connection, the client answers it, then returns the delegation.
     */
    @Test
    void theCallbackIsDecodedAndNamed() {
        List<DecodedUnit> cb = report.units().stream().filter(u -> u.summary().contains("NFSv4 callback"))
                .collect(Collectors.toList());
        assertThat(cb).hasSize(2);
        DecodedUnit call = cb.get(0);
        DecodedUnit reply = cb.get(1);
        assertThat(call.frame()).isEqualTo(238);
        assertThat(call.connection()).isEqualTo(1);
        assertThat(call.direction()).isEqualTo("R>I");
        assertThat(call.summary()).startsWith("Send ").contains("| RDMA_MSG xid 0x7a2618fa cr 2 | ")
                .endsWith("| CALL NFSv4 callback CB_COMPOUND minor 2: CB_SEQUENCE CB_RECALL");
        assertThat(reply.frame()).isEqualTo(240);
        assertThat(reply.direction()).isEqualTo("I>R");
        assertThat(reply.summary()).contains("| RDMA_MSG xid 0x7a2618fa cr 16 | ").endsWith("| REPLY to NFSv4 callback"
                + " CB_COMPOUND (frame 238) SUCCESS NFS4_OK: CB_SEQUENCE OK, CB_RECALL OK");
        assertThat(report.units()).filteredOn(u -> u.frame() == 241).singleElement()
                .extracting(DecodedUnit::summary).asString().endsWith("| CALL NFSv4 COMPOUND minor 2: SEQUENCE PUTFH GETATTR DELEGRETURN");
    }
}
