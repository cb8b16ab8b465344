package org.iwarp4j.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.RandomAccessFile;
import java.io.StringWriter;
import java.io.Writer;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.iwarp4j.testkit.TestData;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code iwarp decode}: output forms and exit status 0 (clean), 1 (violations), 2 (unreadable, usage). */
class DecodeCommandTest {

    private final StringWriter out = new StringWriter();
    private final StringWriter err = new StringWriter();

    private int iwarp(String... args) {
        return IwarpCommand.run(new PrintWriter(out, true), new PrintWriter(err, true), args);
    }

    private static String capture(String name) {
        return TestData.root().resolve("captures").resolve(name).toString();
    }

    @Test
    void aCleanCaptureExitsZero() {
        assertThat(iwarp("decode", capture("rping-siw.pcap"))).isZero();
        assertThat(out.toString()).startsWith("pcap, 91 frames, 1 TCP connections, 1 iWARP\n")
                .contains("     4   0 I>R MPA Request rev 2 flags 0x10 (S) PD 4: IRD 1 ORD 1\n")
                .endsWith("0 violations\n");
        assertThat(err.toString()).isEmpty();
    }

    @Test
    void violationsExitOneAndNameTheRequirement() {
        assertThat(iwarp("decode", capture("ib_send_bw-siw.pcap"))).isEqualTo(1);
        assertThat(out.toString()).contains("   !! frame 14 conn 0 I>R MPA-R-011: pad 0040 is not zero\n")
                .endsWith("2 violations: MPA-R-011\n");
    }

    @Test
    void aCorruptedCrcExitsOne(@TempDir Path dir) throws Exception {
        byte[] file = Files.readAllBytes(Path.of(capture("rping-siw-crc.pcap")));
        int pos = 24;
        for (int frame = 1; frame < 8; frame++) {
            pos += 16 + ByteBuffer.wrap(file, pos + 8, 4).order(ByteOrder.LITTLE_ENDIAN).getInt();
        }
        file[pos + 16 + ByteBuffer.wrap(file, pos + 8, 4).order(ByteOrder.LITTLE_ENDIAN).getInt() - 1] ^= 0x10;
        Path bad = dir.resolve("bad-crc.pcap");
        Files.write(bad, file);
        assertThat(iwarp("decode", bad.toString())).isEqualTo(1);
        assertThat(out.toString()).contains("!! frame 8 conn 0 I>R MPA-R-030: CRC field ")
                .endsWith("1 violations: MPA-R-030\n");
    }

    @Test
    void jsonVerboseAndOneConnection() {
        assertThat(iwarp("decode", "--json", capture("nfs3-rdma-siw.pcap"))).isEqualTo(1);
        assertThat(out.toString()).contains("\"id\": \"MPA-R-006\"").contains("\"rfc\": \"RFC 5044\"")
                .contains("\"summary\": \"Send QN 0 MSN 1 MO 0 len 68 L | RDMA_MSG xid 0xa137727f cr 128 | CALL"
                        + " NFSv3 NULL\"").contains("\"exitStatus\": 1");
        out.getBuffer().setLength(0);
        assertThat(iwarp("decode", "-V", "--connection", "1", capture("nfs3-rdma-siw.pcap"))).isZero();
        assertThat(out.toString()).contains("rpcrdma: xid=0x132f65b5 version=1 credits=128 procedure=RDMA_MSG")
                .contains("rpc: type=CALL xid=0x132f65b5 rpcVersion=2 program=100003 version=3 procedure=0 name=NFSv3 NULL")
                .doesNotContain("   0 I>R ");
    }

    @Test
    void unreadableInputAndUsageErrorsExitTwo(@TempDir Path dir) throws Exception {
        assertThat(iwarp("decode", dir.resolve("missing.pcap").toString())).isEqualTo(2);
        assertThat(err.toString()).isEqualTo("iwarp decode: " + dir.resolve("missing.pcap") + ": no such file"
                + System.lineSeparator());
        Path text = dir.resolve("notes.txt");
        Files.writeString(text, "not a capture at all");
        err.getBuffer().setLength(0);
        assertThat(iwarp("decode", text.toString())).isEqualTo(2);
        assertThat(err.toString()).contains("not a pcap or pcapng file");
        assertThat(iwarp("decode", "--connection", "x", capture("rping-siw.pcap"))).isEqualTo(2);
        assertThat(out.toString()).isEmpty();
    }

    /** Usage errors the command finds itself read as picocli's: the rule, then where the help is. */
    @Test
    void usageErrorsFoundByTheCommandSayWhereTheHelpIs() {
        String nl = System.lineSeparator();
        assertThat(iwarp("decode")).isEqualTo(2);
        assertThat(err.toString()).isEqualTo("iwarp decode: no capture file given (iwarp decode FILE)" + nl
                + "see iwarp decode --help" + nl);
        err.getBuffer().setLength(0);
        assertThat(iwarp("decode", "--connection", "-1", capture("rping-siw.pcap"))).isEqualTo(2);
        assertThat(err.toString()).isEqualTo("iwarp decode: --connection -1: must be 0 or more" + nl
                + "see iwarp decode --help" + nl);
        assertThat(out.toString()).isEmpty();
    }

    /** A section header, then an enhanced packet block of 12 octets: it threw out of the decoder. */
    @Test
    void aDamagedPcapngIsReportedNotThrown(@TempDir Path dir) throws Exception {
        ByteBuffer b = ByteBuffer.allocate(40).order(ByteOrder.LITTLE_ENDIAN);
        b.putInt(0x0a0d0d0a).putInt(28).putInt(0x1a2b3c4d).putShort((short) 1).putShort((short) 0).putLong(-1)
                .putInt(28).putInt(6).putInt(12).putInt(12);
        Path damaged = dir.resolve("damaged.pcapng");
        Files.write(damaged, b.array());
        assertThat(iwarp("decode", damaged.toString())).isZero();
        assertThat(out.toString()).startsWith("pcapng, 0 frames, 0 TCP connections")
                .contains("reading stopped after frame 0: the next record is cut short or damaged");
        assertThat(err.toString()).doesNotContain("at org.").isEmpty();
    }

    /** Out of memory is status 2 with one line saying what to do, not status 1 ("violations") and a trace. */
    @Test
    void runningOutOfMemoryExitsTwoWithAdvice(@TempDir Path dir) throws Exception {
        Path large = dir.resolve("large.pcap");
        try (RandomAccessFile f = new RandomAccessFile(large.toFile(), "rw")) {
            f.setLength(64L << 20); // sparse: more than the child's heap, no disk
        }
        try (ChildIwarp child = ChildIwarp.startWith(List.of("-Xmx32m"), "decode", large.toString())) {
            String output = child.awaitExit(60);
            assertThat(child.process().exitValue()).isEqualTo(2);
            assertThat(output).isEqualTo("iwarp decode: " + large + ": not enough memory to decode it; give Java more"
                    + " (IWARP_JAVA_OPTS=-Xmx8g) or split the capture (editcap -c 1000000 " + large + " part.pcap)");
        }
    }

    /**
     * The JVM giving out while the report is printed (here the output's writer throws after 1,000
     * characters) is status 2 and one line too: the report used to be printed outside the catch.
     */
    @Test
    void failingWhilePrintingTheReportExitsTwo() {
        for (Error error : List.of(new OutOfMemoryError("Java heap space"), new StackOverflowError(),
                new AssertionError("unreachable"))) {
            err.getBuffer().setLength(0);
            String file = capture("nfs3-rdma-siw.pcap");
            assertThat(IwarpCommand.run(failingAfter1000Characters(() -> {
                throw error;
            }), new PrintWriter(err, true), "decode", "--json", file)).isEqualTo(2);
            assertThat(err.toString()).isEqualTo("iwarp decode: " + file + ": " + (error instanceof OutOfMemoryError
                    ? "not enough memory to print its report; give Java more (IWARP_JAVA_OPTS=-Xmx8g) or split the"
                    + " capture (editcap -c 1000000 " + file + " part.pcap)"
                    : "printing the report failed (" + error + "); please report this with the capture")
                    + System.lineSeparator());
        }
    }

    /**
     * An output that fails (a closed pipe, a full disk) cuts the report short, and a PrintWriter
     * keeps the IOException to itself: status 2 and one line, not the status of a complete report.
     */
    @Test
    void anOutputThatFailsWhileTheReportIsWrittenExitsTwo() {
        String file = capture("nfs3-rdma-siw.pcap");
        assertThat(IwarpCommand.run(failingAfter1000Characters(() -> {
            throw new java.io.IOException("Broken pipe");
        }), new PrintWriter(err, true), "decode", "--json", file)).isEqualTo(2);
        assertThat(err.toString()).isEqualTo("iwarp decode: " + file + ": the report could not be written in full"
                + " (its output failed: a closed pipe or a full disk?)" + System.lineSeparator());
    }

    /** What an output does once it is full. */
    private interface Failure {
        void fail() throws java.io.IOException;
    }

    /** An output that takes 1,000 characters, then fails as {@code failure} does at every write. */
    private static PrintWriter failingAfter1000Characters(Failure failure) {
        return new PrintWriter(new Writer() {
            private int written;

            @Override
            public void write(char[] chars, int from, int length) throws java.io.IOException {
                written += length;
                if (written > 1000) {
                    failure.fail();
                }
            }

            @Override
            public void flush() {
            }

            @Override
            public void close() {
            }
        });
    }

    @Test
    void rulesAndVersion() {
        assertThat(iwarp("decode", "--rules")).isZero();
        assertThat(out.toString()).contains("RFC 5044 (15 rules)").contains("  MPA-R-030    MUST   with CRCs in use")
                .contains("RFC 8166 (14 rules)").contains("RFC 8267 (5 rules)")
                .contains("  ULB-R-018    MUST   NFSv4: the k-th Write chunk");
        out.getBuffer().setLength(0);
        assertThat(iwarp("decode", "--version")).isZero();
        assertThat(out.toString().strip()).isEqualTo(IwarpCommand.VERSION);
    }
}
