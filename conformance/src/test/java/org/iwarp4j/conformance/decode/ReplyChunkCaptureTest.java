package org.iwarp4j.conformance.decode;

import static org.assertj.core.api.Assertions.assertThat;
import static org.iwarp4j.conformance.decode.Nfs4Wire.GETATTR;
import static org.iwarp4j.conformance.decode.Nfs4Wire.PUTFH;
import static org.iwarp4j.conformance.decode.Nfs4Wire.SEQUENCE;
import static org.iwarp4j.conformance.decode.Nfs4Wire.bytes;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import java.util.stream.Collectors;
import org.iwarp4j.conformance.decode.Nfs4Wire.Chunks;
import org.iwarp4j.conformance.decode.Nfs4Wire.Segment;
import org.iwarp4j.conformance.decode.Nfs4Wire.Xdr;
import org.iwarp4j.conformance.decode.SyntheticCapturesTest.Peer;
import org.junit.jupiter.api.Test;

/**
 * Replies in a Reply chunk (RFC 8166 §3.5.3): the Responder RDMA-Writes the RPC reply into the
 * segments the Call offered and then sends an RDMA_NOMSG transport header that returns the chunk
 * with the lengths it filled. The decoder puts the Writes back together and decodes the reply as it
 * decodes an inline one; when the capture lacks some of the octets it says so and decodes nothing.
 */
class ReplyChunkCaptureTest {

    private static final int READDIR3 = 16;
    private static final int READDIR4 = 26;
    private static final int NFS3ERR_BAD_COOKIE = 10003;
    /** Two segments: the first filled whole, the rest of the reply in the second. */
    private static final Segment HEAD = new Segment(0x7101, 128, 0x7f00_0001_0000L);
    private static final Segment TAIL = new Segment(0x7102, 8192, 0x7f00_0002_0000L);

    /** READDIR3args: directory handle, cookie, cookie verifier, count. */
    private static byte[] readdir3Call(int xid) {
        byte[] args = new Xdr().opaque(bytes(32, 4)).u64(0).raw(new byte[8]).u32(8192).bytes();
        return Nfs4Wire.rdmaMsg(xid, 32, new Chunks().reply(HEAD, TAIL), Nfs4Wire.call(xid, 3, READDIR3, args));
    }

    /** The RPC reply of READDIR3res: status, no attributes, verifier, {@code n} entries, eof. */
    private static byte[] readdir3Reply(int xid, int status, int n) {
        Xdr x = new Xdr().u32(status, 0);
        if (status == 0) {
            x.raw(bytes(8, 6));
            for (int k = 0; k < n; k++) {
                x.u32(1).u64(1000 + k).opaque(("entry-" + k).getBytes(StandardCharsets.US_ASCII)).u64(k + 1);
            }
            x.u32(0, 1);
        }
        return Nfs4Wire.reply(xid, x.bytes());
    }

    /**
     * Writes {@code message} into {@link #HEAD}, then {@link #TAIL}, the tail in two Writes, its second
     * half first (a Responder may place the octets in any order), and returns the filled lengths.
     */
    private static Segment[] fill(Peer p, byte[] message) {
        int head = Math.min(HEAD.length(), message.length);
        Nfs4CompoundCaptureTest.rdmaWrite(p, HEAD.handle(), HEAD.offset(), Arrays.copyOfRange(message, 0, head));
        int tail = message.length - head;
        int half = tail / 2;
        Nfs4CompoundCaptureTest.rdmaWrite(p, TAIL.handle(), TAIL.offset() + half,
                Arrays.copyOfRange(message, head + half, message.length));
        Nfs4CompoundCaptureTest.rdmaWrite(p, TAIL.handle(), TAIL.offset(),
                Arrays.copyOfRange(message, head, head + half));
        return new Segment[] {new Segment(HEAD.handle(), head, HEAD.offset()),
            new Segment(TAIL.handle(), tail, TAIL.offset())};
    }

    private static List<String> lines(DecodeReport r) {
        return r.units().stream().map(DecodedUnit::summary).collect(Collectors.toList());
    }

    private static DecodedUnit nomsg(DecodeReport r, int xid) {
        String marker = String.format("RDMA_NOMSG xid 0x%08x ", xid);
        return r.units().stream().filter(u -> u.summary().contains(marker)).findFirst().orElseThrow();
    }

    @Test
    void nfs3ReaddirRepliesInTheReplyChunkAreDecoded() throws Exception {
        Peer p = Nfs4CompoundCaptureTest.nfs();
        byte[] ok = readdir3Reply(0x30, 0, 12);
        byte[] failed = readdir3Reply(0x31, NFS3ERR_BAD_COOKIE, 0);
        assertThat(ok.length).isGreaterThan(HEAD.length() + 2);
        p.i(MpaWire.send(1, readdir3Call(0x30)));
        Segment[] returned = fill(p, ok);
        p.r(MpaWire.send(1, Nfs4Wire.rdmaNomsg(0x30, 8, new Chunks().reply(returned))));
        p.i(MpaWire.send(2, readdir3Call(0x31)));
        Nfs4CompoundCaptureTest.rdmaWrite(p, HEAD.handle(), HEAD.offset(), failed);
        p.r(MpaWire.send(2, Nfs4Wire.rdmaNomsg(0x31, 8, new Chunks().reply(new Segment(HEAD.handle(),
                failed.length, HEAD.offset()), new Segment(TAIL.handle(), 0, TAIL.offset())))));

        DecodeReport r = p.decode();
        assertThat(r.violations()).isEmpty();
        assertThat(r.notes()).isEmpty();
        assertThat(lines(r)).anySatisfy(l -> assertThat(l).endsWith("| CALL NFSv3 READDIR"));
        assertThat(lines(r).stream().filter(l -> l.startsWith("Write STag "))).hasSize(4)
                .allSatisfy(l -> assertThat(l).containsPattern(" -> xid 0x0000003[01] reply chunk$"));
        DecodedUnit first = nomsg(r, 0x30);
        assertThat(first.summary()).endsWith(String.format("| RDMA_NOMSG xid 0x00000030 cr 8 reply{ 0x00007101:%d@0x7f0000010000"
                + " 0x00007102:%d@0x7f0000020000 } | REPLY to NFSv3 READDIR (frame 5) SUCCESS NFS3_OK",
                HEAD.length(), ok.length - HEAD.length()));
        assertThat(first.layers().get("rpc")).containsEntry("xid", "0x00000030").containsEntry("acceptStat", "SUCCESS")
                .containsEntry("nfsStatus", 0).containsEntry("replyChunkOctets", ok.length);
        assertThat(nomsg(r, 0x31).summary()).endsWith("| REPLY to NFSv3 READDIR (frame " + (first.frame() + 1)
                + ") SUCCESS NFS3ERR_BAD_COOKIE");
    }

    /** SEQUENCE PUTFH READDIR GETATTR, minor version 1. */
    private static byte[] readdir4Call(int xid) {
        Xdr args = Nfs4Wire.compoundArgs(1, 4);
        Nfs4Wire.putfh(Nfs4Wire.sequence(args, 1)).u32(READDIR4).u64(0).raw(new byte[8]).u32(4096, 8192, 2, 0x0010011a, 0);
        Nfs4Wire.getattr(args);
        return Nfs4Wire.rdmaMsg(xid, 32, new Chunks().reply(HEAD, TAIL), Nfs4Wire.call(xid, args.bytes()));
    }

    /** COMPOUND4res: SEQUENCE, PUTFH, READDIR with {@code n} entries and their attributes, GETATTR. */
    private static byte[] readdir4Reply(int xid, int n) {
        Xdr x = new Xdr().u32(0, 0, 4).u32(SEQUENCE, 0).raw(bytes(16, 7)).u32(1, 0, 63, 63, 0).u32(PUTFH, 0);
        x.u32(READDIR4, 0).raw(bytes(8, 8));
        for (int k = 0; k < n; k++) {
            x.u32(1).u64(k + 3).opaque(("name-" + k).getBytes(StandardCharsets.US_ASCII)).u32(2, 0x0010011a, 0)
                    .opaque(bytes(20, k));
        }
        x.u32(0, 1);
        x.u32(GETATTR, 0, 2, 0x0010011a, 0x00b0a23a).opaque(bytes(16, 9));
        return Nfs4Wire.reply(xid, x.bytes());
    }

    @Test
    void nfs4CompoundRepliesInTheReplyChunkNameEveryOperation() throws Exception {
        Peer p = Nfs4CompoundCaptureTest.nfs();
        byte[] reply = readdir4Reply(0x40, 6);
        p.i(MpaWire.send(1, readdir4Call(0x40)));
        Segment[] returned = fill(p, reply);
        p.r(MpaWire.send(1, Nfs4Wire.rdmaNomsg(0x40, 8, new Chunks().reply(returned))));

        DecodeReport r = p.decode();
        assertThat(r.violations()).isEmpty();
        assertThat(r.notes()).isEmpty();
        assertThat(lines(r)).anySatisfy(l -> assertThat(l).endsWith(
                "| CALL NFSv4 COMPOUND minor 1: SEQUENCE PUTFH READDIR GETATTR"));
        DecodedUnit u = nomsg(r, 0x40);
        assertThat(u.summary()).endsWith("| REPLY to NFSv4 COMPOUND (frame 5) SUCCESS NFS4_OK: SEQUENCE OK, PUTFH OK,"
                + " READDIR OK, GETATTR OK");
        assertThat(u.layers().get("rpc")).containsEntry("nfs4Status", "NFS4_OK")
                .containsEntry("operations", List.of("SEQUENCE OK", "PUTFH OK", "READDIR OK", "GETATTR OK"))
                .containsEntry("replyChunkOctets", reply.length);
    }

    /**
     * The capture lost the TCP segment of one Write into the tail: the gap is reported, and the reply
     * is not decoded; its line and a note say how many of its octets are missing and where.
     */
    @Test
    void aWriteTheCaptureLostIsReportedNotGuessed() throws Exception {
        Peer p = Nfs4CompoundCaptureTest.nfs();
        byte[] reply = readdir4Reply(0x40, 6);
        int head = HEAD.length();
        int tail = reply.length - head;
        p.i(MpaWire.send(1, readdir4Call(0x40)));
        Nfs4CompoundCaptureTest.rdmaWrite(p, HEAD.handle(), HEAD.offset(), Arrays.copyOf(reply, head));
        Nfs4CompoundCaptureTest.rdmaWrite(p, TAIL.handle(), TAIL.offset(), Arrays.copyOfRange(reply, head, head + 100));
        SyntheticCapture.Segment lost = p.capture.segments.get(p.capture.segments.size() - 1);
        Nfs4CompoundCaptureTest.rdmaWrite(p, TAIL.handle(), TAIL.offset() + 100,
                Arrays.copyOfRange(reply, head + 100, reply.length));
        p.r(MpaWire.send(1, Nfs4Wire.rdmaNomsg(0x40, 8, new Chunks().reply(new Segment(HEAD.handle(), head,
                HEAD.offset()), new Segment(TAIL.handle(), tail, TAIL.offset())))));
        p.capture.segments.remove(lost);

        DecodeReport r = p.decode();
        assertThat(r.violations()).isEmpty(); // the capture's loss, not the Responder's
        assertThat(r.notes()).hasSize(2);
        assertThat(r.notes().get(0).text()).contains("octets missing from the capture").contains("decoding resumes");
        assertThat(r.notes().get(1).text()).isEqualTo("the RPC reply in the Reply chunk of xid 0x00000040 lacks 100"
                + " of its " + reply.length + " octets, first octets 0-99 of segment 1 (0x00007102@0x7f0000020000):"
                + " no RDMA Write in the capture placed them, so the reply is not decoded");
        DecodedUnit u = nomsg(r, 0x40);
        assertThat(u.summary()).endsWith("| REPLY to NFSv4 COMPOUND (frame 5) (Reply chunk: 100 of " + reply.length
                + " octets not in the capture; not decoded)");
        assertThat(u.layers()).doesNotContainKey("rpc");
        assertThat(r.notes().get(1).frame()).isEqualTo(u.frame());
    }

    /**
     * No Write was lost, the Responder never sent one yet returns the chunk as filled: RPC-R-028, and
     * the reply is not decoded either.
     */
    @Test
    void aWriteNeverSentIsAViolationAndNotGuessed() throws Exception {
        Peer p = Nfs4CompoundCaptureTest.nfs();
        byte[] reply = readdir4Reply(0x40, 6);
        int head = HEAD.length();
        p.i(MpaWire.send(1, readdir4Call(0x40)));
        Nfs4CompoundCaptureTest.rdmaWrite(p, TAIL.handle(), TAIL.offset(), Arrays.copyOfRange(reply, head,
                reply.length));
        p.r(MpaWire.send(1, Nfs4Wire.rdmaNomsg(0x40, 8, new Chunks().reply(new Segment(HEAD.handle(), head,
                HEAD.offset()), new Segment(TAIL.handle(), reply.length - head, TAIL.offset())))));

        DecodeReport r = p.decode();
        assertThat(r.violations()).extracting(Violation::requirementId).containsExactly("RPC-R-028");
        assertThat(r.violations().get(0).detail()).isEqualTo("Reply chunk returned with " + reply.length
                + " octets, RDMA Writes placed " + (reply.length - head) + " in it");
        assertThat(r.notes()).singleElement().satisfies(n -> assertThat(n.text()).contains("lacks " + head
                + " of its " + reply.length + " octets, first octets 0-" + (head - 1) + " of segment 0"));
        assertThat(nomsg(r, 0x40).summary()).endsWith("(Reply chunk: " + head + " of " + reply.length
                + " octets not in the capture; not decoded)");
    }

    /** The reply in the chunk carries another XID than the transport header (RFC 8166 §4.2.1). */
    @Test
    void theReplyInTheChunkMustCarryTheTransportHeadersXid() throws Exception {
        Peer p = Nfs4CompoundCaptureTest.nfs();
        byte[] reply = readdir3Reply(0x99, 0, 2);
        int xid = 0x80000030; // above 2^31: XIDs are unsigned
        p.i(MpaWire.send(1, readdir3Call(xid)));
        Nfs4CompoundCaptureTest.rdmaWrite(p, TAIL.handle(), TAIL.offset(), reply);
        p.r(MpaWire.send(1, Nfs4Wire.rdmaNomsg(xid, 8, new Chunks().reply(new Segment(HEAD.handle(), 0,
                HEAD.offset()), new Segment(TAIL.handle(), reply.length, TAIL.offset())))));

        DecodeReport r = p.decode();
        assertThat(r.violations()).extracting(Violation::requirementId).containsExactly("RPC-R-038");
        assertThat(r.violations().get(0).detail()).isEqualTo("rdma_xid 0x80000030, the RPC reply in the Reply chunk"
                + " has XID 0x00000099");
        assertThat(nomsg(r, xid).summary()).endsWith("| REPLY to NFSv3 READDIR (frame 5) SUCCESS NFS3_OK");
    }

    /**
     * The decoder keeps at most 16 MiB of Reply chunk octets for one direction's unanswered Calls: a
     * Reply chunk filled beyond that is not decoded, and the note says why.
     */
    @Test
    void replyChunkOctetsBeyondTheBoundAreNotKept() throws Exception {
        Peer p = Nfs4CompoundCaptureTest.nfs();
        int size = (16 << 20) + 4096;
        Segment big = new Segment(0x7201, size, 0x7f10_0000_0000L);
        byte[] args = new Xdr().opaque(bytes(32, 4)).u64(0).raw(new byte[8]).u32(size).bytes();
        p.i(MpaWire.send(1, Nfs4Wire.rdmaMsg(0x50, 32, new Chunks().reply(big), Nfs4Wire.call(0x50, 3, READDIR3,
                args))));
        for (int off = 0; off < size; off += 8192) {
            p.r(MpaWire.write(big.handle(), big.offset() + off, new byte[Math.min(8192, size - off)]));
        }
        p.r(MpaWire.send(1, Nfs4Wire.rdmaNomsg(0x50, 8, new Chunks().reply(big))));

        DecodeReport r = p.decode();
        // Only the SHOULD-level warnings about the test's 8 KiB FPDUs (receiver's MSS 1460): every Write
        // lands in the chunk (RPC-R-081) and the chunk is returned as filled (RPC-R-028).
        assertThat(r.violations()).extracting(Violation::requirementId).containsOnly("MPA-R-005");
        assertThat(nomsg(r, 0x50).summary()).endsWith("| REPLY to NFSv3 READDIR (frame 5) (Reply chunk not decoded:"
                + " not kept)");
        assertThat(r.notes()).singleElement().satisfies(n -> assertThat(n.text()).isEqualTo("the Reply chunk of xid"
                + " 0x00000050 is not decoded: 4096 octets of the RDMA Writes into it were not kept (the decoder"
                + " keeps at most 16 MiB of Reply chunk octets per direction for Calls not yet answered)"));
    }

    /**
     * One RDMA Write of 32 KiB into the offered segment, then an RDMA_NOMSG Reply that returns that
     * segment 65536 times: every returned segment is covered by what was written, yet the chunk
     * would hold 2^31 octets, far more than the Writes placed (RPC-R-028). The decoder must not try
     * to put that together: a note says why and the Reply is not decoded.
     */
    @Test
    void aReplyChunkReturningTheSameOctetsOverAndOverIsNotAssembled() throws Exception {
        Peer p = Nfs4CompoundCaptureTest.nfs();
        Segment offered = new Segment(0x7301, 32768, 0);
        byte[] args = new Xdr().opaque(bytes(32, 4)).u64(0).raw(new byte[8]).u32(32768).bytes();
        p.i(MpaWire.send(1, Nfs4Wire.rdmaMsg(0x60, 32, new Chunks().reply(offered), Nfs4Wire.call(0x60, 3, READDIR3,
                args))));
        Nfs4CompoundCaptureTest.rdmaWrite(p, offered.handle(), offered.offset(),
                Arrays.copyOf(readdir3Reply(0x60, 0, 4), offered.length()));
        Segment[] returned = new Segment[1 << 16];
        Arrays.fill(returned, offered);
        sendInSegments(p, 1, Nfs4Wire.rdmaNomsg(0x60, 8, new Chunks().reply(returned)));

        DecodeReport r = p.decode();
        // The transport header alone (1 MiB) is beyond the reply inline threshold (RPC-R-034).
        assertThat(r.violations()).extracting(Violation::requirementId).containsExactly("RPC-R-034", "RPC-R-028");
        assertThat(r.violations().get(1).detail()).isEqualTo("Reply chunk returned with 2147483648 octets, RDMA"
                + " Writes placed 32768 in it");
        assertThat(r.notes()).singleElement().satisfies(n -> assertThat(n.text()).isEqualTo("the Reply chunk of xid"
                + " 0x00000060 is not decoded: its segments add up to 2147483648 octets, more than the 32768 octets"
                + " RDMA Writes placed in it"));
        assertThat(nomsg(r, 0x60).summary()).endsWith("(Reply chunk not decoded: 2147483648 octets returned, 32768"
                + " written)");
        assertThat(nomsg(r, 0x60).layers()).doesNotContainKey("rpc");
    }

    /** A Send of {@code payload} from the Responder, cut into DDP segments of 1024 octets. */
    private static void sendInSegments(Peer p, int msn, byte[] payload) {
        for (int mo = 0; mo < payload.length; mo += 1024) {
            int end = Math.min(payload.length, mo + 1024);
            p.r(MpaWire.untagged(3, end == payload.length, 0, 0, msn, mo, Arrays.copyOfRange(payload, mo, end)));
        }
    }
}
