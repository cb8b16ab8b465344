package org.iwarp4j.conformance.decode;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.util.List;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.Tuple;
import org.iwarp4j.testkit.TestData;

/**
 * A capture file is untrusted input: whatever its octets, the decoder returns a report or says the
 * file is unreadable, and never fails otherwise. Real captures are cut short and have octets
 * overwritten at random.
 */
class CorruptCaptureProperties {

    private static final List<String> CAPTURES = List.of("rping-siw-crc.pcap", "rping-siw.pcap",
            "ib_read_bw-siw.pcap", "nfs3-rdma-siw-lost.pcap", "nfs4-rdma-siw.pcap");

    @Provide
    Arbitrary<Tuple.Tuple3<String, List<Integer>, Integer>> damage() {
        return Arbitraries.of(CAPTURES).flatMap(name -> {
            int size = size(name);
            return Arbitraries.integers().between(0, size - 1).list().ofMinSize(1).ofMaxSize(40)
                    .flatMap(positions -> Arbitraries.integers().between(0, size)
                            .map(cut -> Tuple.of(name, positions, cut)));
        });
    }

    private static int size(String name) {
        try {
            return (int) Files.size(TestData.root().resolve("captures").resolve(name));
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    /** A synthetic connection with markers and CRC both ways, so damage reaches the marker code too. */
    @Property(tries = 150)
    void damagedMarkerCapturesDecodeOrAreUnreadable(@ForAll("positions") List<Integer> positions, @ForAll byte value)
            throws Exception {
        byte[] file = markerCapture();
        for (int position : positions) {
            // Past the 24-octet pcap file header: this property is about damaged packets (a damaged
            // header is an unreadable file, which damagedCapturesDecodeOrAreUnreadable covers).
            int at = 24 + position % (file.length - 24);
            file[at] = (byte) (file[at] ^ (value == 0 ? 0x21 : value));
        }
        DecodeReport r = CaptureDecoder.decode(file, DecodeOptions.DEFAULT);
        assertThat(r.connections()).hasSizeLessThanOrEqualTo(2);
    }

    @Provide
    Arbitrary<List<Integer>> positions() {
        return Arbitraries.integers().between(24, Integer.MAX_VALUE).list().ofMinSize(1).ofMaxSize(10);
    }

    private static byte[] markerCapture() {
        return markerPeer().capture.pcap(false);
    }

    private static SyntheticCapturesTest.Peer markerPeer() {
        SyntheticCapturesTest.Peer p = new SyntheticCapturesTest.Peer(7174).startup(0xd0,
                MpaWire.enhanced(false, java.util.Set.of(), 4, 4, new byte[0]), 0xd0,
                MpaWire.enhanced(false, java.util.Set.of(), 4, 4, new byte[0]));
        for (int k = 1; k <= 3; k++) {
            byte[] payload = new byte[700 * k];
            p.i(MpaWire.send(k, payload));
            p.r(MpaWire.readRequest(k, 0x10, 0, 900, 0x20, 0));
            p.i(MpaWire.readResponse(0x10, 0, new byte[900], true));
        }
        return p;
    }

    /** The marker capture as pcapng, and where each of its blocks starts. */
    private static final byte[] PCAPNG = markerPeer().capture.pcapng();
    private static final List<Integer> BLOCKS = blockStarts(PCAPNG);

    private static List<Integer> blockStarts(byte[] pcapng) {
        List<Integer> starts = new java.util.ArrayList<>();
        for (int pos = 0; pos < pcapng.length; pos += java.nio.ByteBuffer.wrap(pcapng).getInt(pos + 4)) {
            starts.add(pos);
        }
        return starts;
    }

    /** A block after the section header, the length to give it, and where after its start the file ends. */
    @Provide
    Arbitrary<Tuple.Tuple3<Integer, Integer, Integer>> blockDamage() {
        return Arbitraries.integers().between(1, BLOCKS.size() - 1).flatMap(block -> Arbitraries.integers()
                .between(0, 16).flatMap(words -> Arbitraries.integers().between(0, 64)
                        .map(end -> Tuple.of(block, 4 * words, end))));
    }

    /**
     * pcapng: one block's length rewritten (shorter than its type allows, or longer than the file),
     * the file cut soon after that block starts, and a few octets past the section header damaged.
     */
    @Property(tries = 150)
    void damagedPcapngDecodesOrIsUnreadable(@ForAll("blockDamage") Tuple.Tuple3<Integer, Integer, Integer> d,
            @ForAll("positions") List<Integer> positions, @ForAll byte value) throws Exception {
        byte[] file = PCAPNG.clone();
        int start = BLOCKS.get(d.get1());
        java.nio.ByteBuffer.wrap(file).putInt(start + 4, d.get2());
        for (int position : positions.subList(0, positions.size() / 2)) {
            int at = 28 + position % (file.length - 28);
            file[at] = (byte) (file[at] ^ (value == 0 ? 0x21 : value));
        }
        byte[] cut = java.util.Arrays.copyOf(file, Math.min(file.length, start + d.get3()));
        try {
            DecodeReport r = CaptureDecoder.decode(cut, DecodeOptions.DEFAULT);
            assertThat(r.frames()).isLessThanOrEqualTo(BLOCKS.size() - 2);
            ReportWriter.json(r, new java.io.PrintWriter(java.io.Writer.nullWriter()));
        } catch (UnreadableCaptureException expected) {
            assertThat(expected.getMessage()).isNotBlank();
        }
    }

    @Property(tries = 150)
    void damagedCapturesDecodeOrAreUnreadable(@ForAll("damage") Tuple.Tuple3<String, List<Integer>, Integer> d,
            @ForAll byte value) throws Exception {
        byte[] file = Files.readAllBytes(TestData.root().resolve("captures").resolve(d.get1()));
        for (int position : d.get2()) {
            file[position] = (byte) (file[position] ^ (value == 0 ? 0x5a : value));
        }
        byte[] cut = java.util.Arrays.copyOf(file, d.get3());
        try {
            DecodeReport r = CaptureDecoder.decode(cut, DecodeOptions.DEFAULT.withPorts(java.util.Set.of(7174)));
            assertThat(r.exitStatus()).isBetween(0, 1);
            ReportWriter.json(r, new java.io.PrintWriter(java.io.Writer.nullWriter()));
        } catch (UnreadableCaptureException expected) {
            assertThat(expected.getMessage()).isNotBlank();
        }
    }
}
