package org.iwarp4j.conformance.decode;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.ByteBuffer;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import java.util.function.Supplier;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.iwarp4j.conformance.decode.SyntheticCapturesTest.Peer;
import org.iwarp4j.mpa.RtrType;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * One capture per rule of {@link Check}, each breaking that rule and nothing else: the decoder must
 * report exactly that requirement ID. Together with {@link SyntheticCapturesTest} every check is
 * shown to fire.
 */
class EveryRuleTest {

    private static final byte[] NONE = new byte[0];
    private static final int NFS = 100003;

    private static byte[] bytes(int n) {
        byte[] b = new byte[n];
        for (int i = 0; i < n; i++) {
            b[i] = (byte) (i * 13 + 5);
        }
        return b;
    }

    private static Peer plain() {
        return new Peer(7174).startup(0x40, NONE, 0x40, NONE);
    }

    private static Peer nfs() {
        byte[] pd = MpaWire.enhanced(false, Set.of(), 8, 8, NONE);
        return new Peer(20049).startup(0x50, pd, 0x50, pd);
    }

    private static byte[] enhanced(boolean a, Set<RtrType> rtr, int ird, int ord) {
        return MpaWire.enhanced(a, rtr, ird, ord, NONE);
    }

    /** XDR words into octets. */
    private static byte[] words(int... w) {
        ByteBuffer b = ByteBuffer.allocate(4 * w.length);
        for (int x : w) {
            b.putInt(x);
        }
        return b.array();
    }

    private static final int[] NO_CHUNKS = {0, 0, 0};

    /** An RPC-over-RDMA message: the fixed words, the chunk lists as words, the Payload stream. */
    private static byte[] rdma(int xid, int version, int credits, int procedure, int[] chunks, byte[] payload) {
        return MpaWire.concat(words(xid, version, credits, procedure), words(chunks), payload);
    }

    private static byte[] call(int xid, int program, int version, int procedure, byte[] args) {
        return MpaWire.concat(words(xid, 0, 2, program, version, procedure, 0, 0, 0, 0), args);
    }

    private static byte[] reply(int xid, byte[] results) {
        return MpaWire.concat(words(xid, 1, 0, 0, 0, 0), results);
    }

    /** Client Call, server Reply (granting 8), as RDMA_MSG without chunks. */
    private static Peer exchange(Peer p, int msn, int xid, int procedure) {
        p.i(MpaWire.send(msn, rdma(xid, 1, 8, 0, NO_CHUNKS, call(xid, NFS, 3, procedure, bytes(32)))));
        p.r(MpaWire.send(msn, rdma(xid, 1, 8, 0, NO_CHUNKS, reply(xid, bytes(8)))));
        return p;
    }

    static Stream<Arguments> cases() {
        Map<String, Supplier<Peer>> c = new LinkedHashMap<>();
        c.put("MPA-R-045", () -> {
            Peer p = new Peer(7174);
            p.conn.send(true, MpaWire.startup(true, 0x40, 2, NONE));
            p.conn.send(false, MpaWire.startup(false, 0x40, 2, NONE));
            byte[] wrong = p.capture.segments.get(3).payload();
            wrong[7] = 'X'; // "MPA ID Xep Frame"
            return p;
        });
        c.put("MPA-R-049", () -> new Peer(7174).startup(0x41, NONE, 0x40, NONE));
        c.put("MPA-R-050", () -> new Peer(7174).startup(3, 0x40, NONE, 2, 0x40, NONE));
        c.put("MPA-R-052", () -> new Peer(7174).startup(0x40, bytes(513), 0x40, NONE));
        c.put("MPA-R-054", () -> {
            Peer p = new Peer(7174);
            p.conn.send(false, MpaWire.startup(false, 0x40, 2, NONE));
            p.conn.send(true, MpaWire.startup(true, 0x40, 2, NONE));
            return p;
        });
        c.put("MPA-R-080", () -> {
            Peer p = new Peer(7174);
            byte[] request = MpaWire.startup(true, 0x40, 2, NONE);
            byte[] reply = MpaWire.startup(false, 0x40, 2, NONE);
            p.toResponder = new MpaWire.Sender(request.length, false);
            p.toInitiator = new MpaWire.Sender(reply.length, false);
            p.conn.send(true, request);
            p.i(MpaWire.send(1, bytes(8)));
            p.conn.send(false, reply);
            return p.r(MpaWire.send(1, bytes(8)));
        });
        c.put("MPA-R-006", () -> plain().i(MpaWire.send(1, bytes(64769 - 18))));
        c.put("MPA-R-005", () -> plain().i(MpaWire.send(1, bytes(1500))));
        c.put("MPA-R-011", () -> {
            Peer p = new Peer(7174).startup(0, NONE, 0, NONE); // no CRC: the pad can change alone
            byte[] fpdu = p.toResponder.fpdu(MpaWire.send(1, bytes(1)));
            fpdu[2 + 19] = 0x40; // the one pad octet
            p.conn.send(true, fpdu);
            return p;
        });
        c.put("MPA-R-014", () -> {
            Peer p = new Peer(7174).startup(0x80, NONE, 0x80, NONE); // markers, no CRC
            byte[] fpdu = p.toResponder.fpdu(MpaWire.send(1, bytes(8)));
            fpdu[0] = 0x01; // the marker in front of the first FPDU: a reserved octet
            p.conn.send(true, fpdu);
            return p;
        });
        c.put("MPA-R-010", () -> {
            Peer p = new Peer(7174).startup(0, NONE, 0, NONE);
            p.conn.send(true, words(0x00050000, 0, 0)); // ULPDU_Length 5: no DDP header fits
            p.toResponder = new MpaWire.Sender(20 - 12, false); // markers off: only the position matters
            return p.i(MpaWire.send(1, bytes(8)));
        });
        c.put("MPA-R-046", () -> {
            Peer p = plain(); // neither startup frame sets M
            p.toResponder = new MpaWire.Sender(20, true); // yet the Initiator sends markers
            return p.i(MpaWire.send(1, bytes(600))).i(MpaWire.send(2, bytes(8))).r(MpaWire.send(1, bytes(8)));
        });
        c.put("MPA2-R-002", () -> new Peer(7174).startup(0x50, new byte[2], 0x50, enhanced(false, Set.of(), 1, 1)));
        c.put("MPA2-R-003", () -> new Peer(7174).startup(0x50, enhanced(false, Set.of(), 1, 1), 0x40, NONE));
        c.put("MPA2-R-014", () -> new Peer(7174).startup(0x40, NONE, 0x50, enhanced(false, Set.of(), 1, 1)));
        c.put("MPA2-R-018", () -> new Peer(7174).startup(0x50, enhanced(false, Set.of(), 4, 0x3FFF), 0x50,
                enhanced(false, Set.of(), 4, 4)));
        c.put("MPA2-R-019", () -> new Peer(7174).startup(0x50, enhanced(false, EnumSet.of(RtrType.SEND), 1, 1), 0x50,
                enhanced(false, Set.of(), 1, 1)));
        c.put("DDP-R-017", () -> plain().i(patch(MpaWire.send(1, bytes(8)), 0, 0x42)));
        c.put("DDP-R-016", () -> plain().i(patch(MpaWire.send(1, bytes(8)), 0, 0x45)));
        c.put("DDP-R-026", () -> plain().i(MpaWire.untagged(3, true, 0, 0, 1, 4, bytes(8))));
        c.put("DDP-R-029", () -> plain().i(MpaWire.untagged(3, false, 0, 0, 1, 0, bytes(8)))
                .i(MpaWire.untagged(3, true, 0, 0, 1, 12, bytes(8))));
        c.put("DDP-R-030", () -> plain().i(MpaWire.send(1, NONE)).i(MpaWire.tagged(0, false, 7, 0, bytes(8)))
                .i(MpaWire.tagged(0, true, 7, 16, bytes(8))));
        c.put("RDMAP-R-002", () -> plain().i(patch(MpaWire.send(1, bytes(8)), 1, 0x83)));
        c.put("RDMAP-R-004", () -> plain().i(patch(MpaWire.send(1, bytes(8)), 1, 0x73)));
        c.put("RDMAP-R-005", () -> plain().i(MpaWire.untagged(3, true, 5, 0, 1, 0, bytes(8))));
        c.put("RDMAP-R-006", () -> plain().i(MpaWire.untagged(9, true, 0, 0, 1, 0, bytes(8))));
        c.put("RDMAP-R-007", () -> plain().i(MpaWire.untagged(3, true, 0, 1, 1, 0, bytes(8))));
        c.put("RDMAP-R-011", () -> plain().i(MpaWire.send(1, NONE)).i(MpaWire.untagged(1, true, 0, 1, 1, 0, bytes(20))));
        c.put("RDMAP-R-025", () -> plain().i(MpaWire.send(1, NONE))
                .r(MpaWire.untagged(7, false, 0, 2, 1, 0, words(0x20020000)))); // L clear
        c.put("RDMAP-R-040", () -> plain().i(MpaWire.send(1, NONE)).r(MpaWire.terminate(0x20, 0x02, 0x40, 0x00)));
        c.put("RPC-R-039", () -> nfs().i(MpaWire.send(1, rdma(1, 2, 8, 0, NO_CHUNKS, call(1, NFS, 3, 0, NONE)))));
        c.put("RPC-R-036", () -> nfs().i(MpaWire.send(1, rdma(1, 1, 8, 1, NO_CHUNKS, NONE))));
        c.put("RPC-R-038", () -> nfs().i(MpaWire.send(1, rdma(1, 1, 8, 0, NO_CHUNKS, call(2, NFS, 3, 0, NONE)))));
        c.put("RPC-R-005", () -> nfs().i(MpaWire.send(1, rdma(1, 1, 8, 0, NO_CHUNKS, call(1, NFS, 3, 0, NONE))))
                .r(MpaWire.send(1, rdma(1, 1, 0, 0, NO_CHUNKS, reply(1, NONE)))));
        c.put("RPC-R-043", () -> exchange(nfs(), 1, 1, 0).i(MpaWire.send(2, rdma(9, 1, 8, 4, new int[0],
                words(2)))));
        c.put("RPC-R-070", () -> exchange(nfs(), 1, 1, 0).i(MpaWire.send(2, rdma(2, 1, 8, 3, new int[0], NONE))));
        c.put("RPC-R-047", () -> nfs().i(MpaWire.send(1, rdma(1, 1, 8, 0, NO_CHUNKS, call(1, NFS, 3, 1, bytes(32)))))
                .r(MpaWire.send(1, rdma(1, 1, 8, 0, new int[] {1, 0, 0x77, 64, 0, 0x1000, 0, 0, 0}, reply(1,
                        NONE)))));
        c.put("RPC-R-028", () -> nfs().i(MpaWire.send(1, rdma(1, 1, 8, 0,
                        new int[] {0, 1, 1, 0x55, 4096, 0, 0x2000, 0, 0}, call(1, NFS, 3, 6, bytes(24)))))
                .r(MpaWire.send(1, rdma(1, 1, 8, 0, NO_CHUNKS, reply(1, words(1))))));
        c.put("RPC-R-014", () -> nfs().i(MpaWire.send(1, rdma(1, 1, 8, 0, NO_CHUNKS, call(1, NFS, 3, 1,
                bytes(1100))))));
        c.put("RPC-R-048", () -> nfs().i(MpaWire.send(1, rdma(1, 1, 8, 0,
                        new int[] {0, 1, 1, 0x55, 4096, 0, 0x2000, 0, 0}, call(1, NFS, 3, 6, bytes(24)))))
                .r(MpaWire.send(1, rdma(1, 1, 8, 0, new int[] {0, 1, 1, 0x55, 0, 0, 0x2000, 0, 0},
                        reply(1, MpaWire.concat(words(0, 0, 100, 1, 100), bytes(100)))))));
        c.put("RPC-R-034", () -> nfs().i(MpaWire.send(1, rdma(1, 1, 8, 0,
                        new int[] {0, 0, 1, 1, 0x77, 4096, 0, 0x8000}, call(1, NFS, 3, 16, bytes(32)))))
                .r(MpaWire.send(1, rdma(1, 1, 8, 0, NO_CHUNKS, reply(1, bytes(1100))))));
        c.put("RPC-R-081", Nfs4CompoundCaptureTest::writeBeyondItsSegment);
        c.put("RPC-R-082", Nfs4CompoundCaptureTest::readOfAnUnofferedHandle);
        c.put("ULB-R-012", Nfs4CompoundCaptureTest::readChunkOfAnIneligibleArgument);
        c.put("ULB-R-019", Nfs4CompoundCaptureTest::readDataInlineDespiteChunk);
        c.put("ULB-R-021", Nfs4CompoundCaptureTest::failedReadlinkWithOctetsInItsChunk);
        c.put("ULB-R-006", () -> nfs().i(MpaWire.send(1, rdma(1, 1, 8, 0,
                new int[] {1, 40, 0x66, 64, 0, 0x3000, 0, 0, 0}, call(1, NFS, 3, 1, bytes(32))))));
        return c.entrySet().stream().map(e -> Arguments.of(e.getKey(), e.getValue()));
    }

    private static byte[] patch(byte[] b, int index, int value) {
        b[index] = (byte) value;
        return b;
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("cases")
    void exactlyThisRuleIsBroken(String id, Supplier<Peer> capture) throws Exception {
        DecodeReport r = capture.get().decode();
        assertThat(r.violations().stream().map(Violation::requirementId).collect(Collectors.toList()))
                .as("%s", r.violations()).containsExactly(id);
        Check check = r.violations().get(0).check();
        assertThat(r.exitStatus()).isEqualTo(check.level() == Check.Level.MUST ? 1 : 0);
    }

    @Test
    void everyCheckIsExercisedHereOrInSyntheticCapturesTest() {
        Set<String> here = cases().map(a -> (String) a.get()[0]).collect(Collectors.toSet());
        Set<String> elsewhere = Set.of("MPA-R-030", "DDP-R-025", "MPA2-R-009", "MPA-R-017", "RPC-R-003",
                "RDMAP-R-026", "RDMAP-R-027", "MPA2-R-005", "MPA2-R-008", "MPA-R-061", "RDMAP-R-012", "RDMAP-R-016",
                "DDP-R-013", "ULB-R-018");
        assertThat(Stream.of(Check.values()).map(Check::requirementId))
                .allSatisfy(id -> assertThat(here.contains(id) || elsewhere.contains(id)).as(id).isTrue());
    }
}
