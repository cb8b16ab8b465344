package org.iwarp4j.conformance.decode;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import java.io.RandomAccessFile;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.iwarp4j.conformance.decode.internal.AllocatedBytes;
import org.iwarp4j.conformance.decode.internal.LookupSteps;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A capture may come from a stranger: whatever it claims, the decoder's memory and work stay
 * proportional to the file.
 */
class HostileCaptureTest {

    /**
     * 64 connections, each direction one-octet segments 256 MiB apart (each jump allowed): as
     * streams held with their gaps they would ask for 64 × 2 × 1.75 GiB.
     */
    @Test
    void sparseSequenceNumbersCostOnlyTheOctetsCaptured() throws Exception {
        SyntheticCapture capture = new SyntheticCapture();
        for (int port = 40000; port < 40064; port++) {
            SyntheticCapture.Conn c = capture.connect(port, 7174);
            for (long k = 0; k < 8; k++) {
                capture.segments.add(new SyntheticCapture.Segment(port, 7174, true, c.clientSeq + (k << 28),
                        SyntheticCapture.ACK, -1, new byte[] {'M'}));
                capture.segments.add(new SyntheticCapture.Segment(port, 7174, false, (c.serverSeq + (k << 28)) & 0xffffffffL,
                        SyntheticCapture.ACK, -1, new byte[] {'M'}));
            }
        }
        byte[] file = capture.pcap(false);
        long before = AllocatedBytes.ofThisThread();
        DecodeReport r = CaptureDecoder.decode(file, DecodeOptions.DEFAULT);
        assertThat(AllocatedBytes.ofThisThread() - before).isLessThan(64L << 20);
        assertThat(r.tcpConnections()).isEqualTo(64);
        assertThat(r.connections()).isEmpty();
        before = AllocatedBytes.ofThisThread();
        DecodeReport byPort = CaptureDecoder.decode(file, DecodeOptions.DEFAULT.withPorts(Set.of(7174)));
        assertThat(AllocatedBytes.ofThisThread() - before).isLessThan(64L << 20);
        assertThat(byPort.connections()).hasSize(64)
                .allSatisfy(c -> assertThat(c.missingOctets()).isEqualTo(2 * 7 * ((1L << 28) - 1)));
    }

    @Test
    void aFileOverTwoGibibytesIsUnreadableWithAdvice(@TempDir Path dir) throws Exception {
        Path large = dir.resolve("large.pcap");
        try (RandomAccessFile f = new RandomAccessFile(large.toFile(), "rw")) {
            f.setLength(3L << 30); // sparse: no disk, and the check must come before any reading
        }
        assertThatThrownBy(() -> CaptureDecoder.decode(large, DecodeOptions.DEFAULT))
                .isInstanceOf(UnreadableCaptureException.class)
                .hasMessage(large + ": 3,221,225,472 octets, more than the decoder reads (2 GiB); split it first,"
                        + " e.g. editcap -c 1000000 " + large + " part.pcap, and decode the parts");
    }

    /** A section header, then an enhanced packet block of 12 octets (it needs 32): the file ends there. */
    static byte[] shortPacketBlock() {
        ByteBuffer b = ByteBuffer.allocate(40).order(ByteOrder.LITTLE_ENDIAN);
        b.putInt(0x0a0d0d0a).putInt(28).putInt(0x1a2b3c4d).putShort((short) 1).putShort((short) 0).putLong(-1)
                .putInt(28);
        b.putInt(6).putInt(12).putInt(12);
        return b.array();
    }

    @Test
    void aPacketBlockTooShortForItsTypeEndsTheReading() throws Exception {
        DecodeReport alone = CaptureDecoder.decode(shortPacketBlock(), DecodeOptions.DEFAULT);
        assertThat(alone.frames()).isZero();
        assertThat(alone.notes()).extracting(Note::text)
                .containsExactly("reading stopped after frame 0: the next record is cut short or damaged");
        SyntheticCapturesTest.Peer p = new SyntheticCapturesTest.Peer(7174);
        p.conn.send(true, new byte[] {1, 2, 3});
        byte[] whole = p.capture.pcapng();
        byte[] damaged = java.util.Arrays.copyOf(whole, whole.length + 12);
        ByteBuffer.wrap(damaged, whole.length, 12).putInt(6).putInt(12).putInt(12);
        DecodeReport r = CaptureDecoder.decode(damaged, DecodeOptions.DEFAULT);
        assertThat(r.frames()).as("the frames before it are kept").isEqualTo(3);
        assertThat(r.notes()).extracting(Note::text)
                .containsExactly("reading stopped after frame 3: the next record is cut short or damaged");
    }

    /**
     * After the Requester's gap the ORD no longer bounds the Read Requests outstanding (RDMAP-R-012
     * is set aside): 20,000 of them into one STag, none answered, then 20,000 Responses into the
     * holes between their sink buffers, each judged by none (it may answer a lost Request,
     * RDMAP-R-016). Each Response used to walk every outstanding Request, 4 × 10^8 steps; indexed by
     * sink STag and range, each costs log n, counted rather than timed.
     */
    @Test
    void responsesThatMatchNoneOfManyOutstandingReadRequestsCostLogNEach() throws Exception {
        SyntheticCapturesTest.Peer p = new SyntheticCapturesTest.Peer(7174)
                .startup(0x40, MpaWire.enhanced(false, Set.of(), 4, 4, new byte[0]), 0x40,
                        MpaWire.enhanced(false, Set.of(), 4, 4, new byte[0]));
        p.i(MpaWire.send(1, new byte[8]));
        int reads = 20_000;
        for (int k = 0; k < reads; k++) {
            p.i(MpaWire.readRequest(1 + k, 0x11, 16L * k, 8, 0x21, 0));
        }
        for (int k = 0; k < reads; k++) {
            p.r(MpaWire.readResponse(0x11, 16L * k + 8, new byte[8], true));
        }
        p.capture.segments.remove(5); // SYN, SYN-ACK, Request, Reply, then the Send: the Requester's gap
        byte[] file = p.capture.pcap(false);
        long before = LookupSteps.ofThisThread();
        DecodeReport r = CaptureDecoder.decode(file, DecodeOptions.DEFAULT);
        assertThat(LookupSteps.ofThisThread() - before).as("index steps for %d Responses", reads)
                .isPositive().isLessThan(64L * reads);
        assertThat(r.units()).hasSize(2 + 2 * reads);
        assertThat(r.violations()).isEmpty();
    }

    /**
     * 100,000 FPDUs, each after a lost segment: finding the gap at an offset must not walk every
     * gap (that took minutes), nor may resynchronising after each.
     */
    @Test
    void manyGapsCostTimeInProportion() {
        byte[] pd = MpaWire.enhanced(false, Set.of(), 4, 4, new byte[0]);
        SyntheticCapturesTest.Peer p = new SyntheticCapturesTest.Peer(7174).startup(0x10, pd, 0x10, pd);
        int fpdus = 100_000;
        for (int k = 1; k <= 2 * fpdus; k++) {
            p.i(MpaWire.send(k, new byte[] {1, 2, 3, 4}));
        }
        List<SyntheticCapture.Segment> segments = p.capture.segments;
        int startup = 4; // SYN, SYN-ACK, Request, Reply
        List<SyntheticCapture.Segment> kept = new ArrayList<>(segments.subList(0, startup));
        for (int i = startup + 1; i < segments.size(); i += 2) {
            kept.add(segments.get(i));
        }
        segments.clear();
        segments.addAll(kept);
        byte[] file = p.capture.pcap(false);
        DecodeReport r = assertTimeoutPreemptively(Duration.ofSeconds(20),
                () -> CaptureDecoder.decode(file, DecodeOptions.DEFAULT));
        assertThat(r.units()).hasSize(2 + fpdus);
        assertThat(r.notes()).filteredOn(n -> n.text().contains("octets missing from the capture")).hasSize(fpdus);
        assertThat(r.violations()).isEmpty();
    }
}
