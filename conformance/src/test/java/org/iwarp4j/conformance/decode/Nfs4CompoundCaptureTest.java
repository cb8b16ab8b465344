package org.iwarp4j.conformance.decode;

import static org.assertj.core.api.Assertions.assertThat;
import static org.iwarp4j.conformance.decode.Nfs4Wire.CALL_HEADER;
import static org.iwarp4j.conformance.decode.Nfs4Wire.GETATTR;
import static org.iwarp4j.conformance.decode.Nfs4Wire.LOOKUP;
import static org.iwarp4j.conformance.decode.Nfs4Wire.NFS4ERR_IO;
import static org.iwarp4j.conformance.decode.Nfs4Wire.NFS4ERR_NOENT;
import static org.iwarp4j.conformance.decode.Nfs4Wire.PUTFH;
import static org.iwarp4j.conformance.decode.Nfs4Wire.READ;
import static org.iwarp4j.conformance.decode.Nfs4Wire.READLINK;
import static org.iwarp4j.conformance.decode.Nfs4Wire.SEQUENCE;
import static org.iwarp4j.conformance.decode.Nfs4Wire.WRITE;
import static org.iwarp4j.conformance.decode.Nfs4Wire.bytes;

import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;
import org.iwarp4j.conformance.decode.Nfs4Wire.Chunks;
import org.iwarp4j.conformance.decode.Nfs4Wire.Segment;
import org.iwarp4j.conformance.decode.Nfs4Wire.Xdr;
import org.iwarp4j.conformance.decode.SyntheticCapturesTest.Peer;
import org.junit.jupiter.api.Test;

/**
 * NFSv4.1 COMPOUNDs over RPC-over-RDMA in synthetic captures: every operation of a Call named,
 * every status of a Reply; RDMA Writes and Read Requests matched against the segments the Calls
 * offered (RFC 8166 §3.4.5, §3.4.6); the RFC 8267 §6 rules (ULB-R-012, ULB-R-018, ULB-R-019, ULB-R-021). A clean
 * session first, then one rule broken at a time.
 */
class Nfs4CompoundCaptureTest {

    private static final Segment CHUNK_A = new Segment(0x5101, 8192, 0x7f00_0000_1000L);
    private static final Segment CHUNK_B = new Segment(0x5102, 8192, 0x7f00_0000_4000L);
    private static final Segment WRITE_DATA = new Segment(0x6101, 3000, 0x7f00_0000_9000L);

    /** RFC 6581 IRD/ORD 8, port 20049, no RFC 8797 data: inline thresholds 1024 both ways. */
    static Peer nfs() {
        byte[] pd = MpaWire.enhanced(false, Set.of(), 8, 8, new byte[0]);
        return new Peer(20049).startup(0x50, pd, 0x50, pd);
    }

    /** Pushes {@code data} with one RDMA Write cut into DDP segments of at most 1024 octets. */
    static void rdmaWrite(Peer p, int stag, long to, byte[] data) {
        for (int off = 0; off < data.length; off += 1024) {
            int end = Math.min(data.length, off + 1024);
            p.r(MpaWire.tagged(0, end == data.length, stag, to + off, Arrays.copyOfRange(data, off, end)));
        }
    }

    static void readResponse(Peer p, int stag, long to, byte[] data) {
        for (int off = 0; off < data.length; off += 1024) {
            int end = Math.min(data.length, off + 1024);
            p.i(MpaWire.readResponse(stag, to + off, Arrays.copyOfRange(data, off, end), end == data.length));
        }
    }

    private static Xdr sequenceResult(Xdr x) {
        return x.u32(SEQUENCE, 0).raw(bytes(16, 7)).u32(1, 0, 63, 63, 0);
    }

    private static Xdr getattrResult(Xdr x) {
        return x.u32(GETATTR, 0, 2, 0x0010011a, 0x00b0a23a).opaque(bytes(16, 9));
    }

    /** COMPOUND4res header: status, empty tag, result count. */
    private static Xdr results(int status, int count) {
        return new Xdr().u32(status, 0, count);
    }

    /** SEQUENCE PUTFH READ GETATTR, the READ's 4096 octets pushed into Write chunk A. */
    private static void readCompound(Peer p, int msn, int xid) {
        Xdr args = Nfs4Wire.compoundArgs(1, 4);
        Nfs4Wire.getattr(Nfs4Wire.read(Nfs4Wire.putfh(Nfs4Wire.sequence(args, msn)), 0, 4096));
        p.i(MpaWire.send(msn, Nfs4Wire.rdmaMsg(xid, 32, new Chunks().write(CHUNK_A), Nfs4Wire.call(xid,
                args.bytes()))));
        rdmaWrite(p, CHUNK_A.handle(), CHUNK_A.offset(), bytes(4096, 1));
        Xdr res = results(0, 4);
        getattrResult(sequenceResult(res).u32(PUTFH, 0).u32(READ, 0, 1, 4096));
        p.r(MpaWire.send(msn, Nfs4Wire.rdmaMsg(xid, 8, new Chunks().write(new Segment(CHUNK_A.handle(), 4096,
                CHUNK_A.offset())), Nfs4Wire.reply(xid, res.bytes()))));
    }

    /** SEQUENCE PUTFH WRITE GETATTR, the WRITE's 3000 octets in a Read chunk the server pulls. */
    private static int writeCompound(Peer p, int msn, int readMsn, int xid) {
        Xdr args = Nfs4Wire.compoundArgs(1, 4);
        Nfs4Wire.putfh(Nfs4Wire.sequence(args, msn)).u32(WRITE).raw(new byte[16]).u64(0).u32(2, 3000);
        int position = CALL_HEADER + args.size();
        Nfs4Wire.getattr(args);
        p.i(MpaWire.send(msn, Nfs4Wire.rdmaMsg(xid, 32, new Chunks().read(position, WRITE_DATA),
                Nfs4Wire.call(xid, args.bytes()))));
        p.r(MpaWire.readRequest(readMsn, 0x9001, 0x1000, 3000, WRITE_DATA.handle(), WRITE_DATA.offset()));
        readResponse(p, 0x9001, 0x1000, bytes(3000, 2));
        Xdr res = results(0, 4);
        getattrResult(sequenceResult(res).u32(PUTFH, 0).u32(WRITE, 0, 3000, 2).raw(bytes(8, 5)));
        p.r(MpaWire.send(msn, Nfs4Wire.rdmaMsg(xid, 8, new Chunks(), Nfs4Wire.reply(xid, res.bytes()))));
        return position;
    }

    private static List<String> lines(DecodeReport r) {
        return r.units().stream().map(DecodedUnit::summary).collect(Collectors.toList());
    }

    private static List<String> ids(DecodeReport r) {
        return r.violations().stream().map(Violation::requirementId).collect(Collectors.toList());
    }

    @Test
    void aCleanSessionNamesEveryOperationAndStatusAndMatchesEveryRdmaTransfer() throws Exception {
        Peer p = nfs();
        readCompound(p, 1, 0x10);
        int position = writeCompound(p, 2, 1, 0x11);
        Xdr args = Nfs4Wire.compoundArgs(1, 3);
        Nfs4Wire.putfh(Nfs4Wire.sequence(args, 3)).u32(LOOKUP).opaque("missing".getBytes());
        p.i(MpaWire.send(3, Nfs4Wire.rdmaMsg(0x12, 32, new Chunks(), Nfs4Wire.call(0x12, args.bytes()))));
        p.r(MpaWire.send(3, Nfs4Wire.rdmaMsg(0x12, 8, new Chunks(), Nfs4Wire.reply(0x12,
                sequenceResult(results(NFS4ERR_NOENT, 3)).u32(PUTFH, 0, LOOKUP, NFS4ERR_NOENT).bytes()))));

        DecodeReport r = p.decode();
        assertThat(r.violations()).isEmpty();
        assertThat(r.notes()).isEmpty();
        List<String> lines = lines(r);
        assertThat(lines).anySatisfy(l -> assertThat(l).endsWith(
                "| RDMA_MSG xid 0x00000010 cr 32 write[ { 0x00005101:8192@0x7f0000001000 } ]"
                        + " | CALL NFSv4 COMPOUND minor 1: SEQUENCE PUTFH READ GETATTR"));
        assertThat(lines).anySatisfy(l -> assertThat(l).endsWith(
                "| REPLY to NFSv4 COMPOUND (frame 5) SUCCESS NFS4_OK: SEQUENCE OK, PUTFH OK, READ OK, GETATTR OK"));
        assertThat(lines.stream().filter(l -> l.startsWith("Write STag 0x00005101 "))).hasSize(4)
                .allSatisfy(l -> assertThat(l).endsWith(" -> xid 0x00000010 write chunk 0"));
        assertThat(lines).anySatisfy(l -> assertThat(l).endsWith(
                "| CALL NFSv4 COMPOUND minor 1: SEQUENCE PUTFH WRITE GETATTR"));
        assertThat(lines).anySatisfy(l -> assertThat(l).startsWith("Read Request QN 1 MSN 1 ")
                .endsWith(" -> xid 0x00000011 read chunk @" + position));
        assertThat(lines.stream().filter(l -> l.startsWith("Read Response STag 0x00009001 "))).hasSize(3)
                .allSatisfy(l -> assertThat(l).endsWith(" -> xid 0x00000011 read chunk @" + position));
        assertThat(lines).anySatisfy(l -> assertThat(l).contains("| CALL NFSv4 COMPOUND minor 1: SEQUENCE PUTFH"
                + " LOOKUP"));
        assertThat(lines).anySatisfy(l -> assertThat(l).endsWith(
                "SUCCESS NFS4ERR_NOENT: SEQUENCE OK, PUTFH OK, LOOKUP NFS4ERR_NOENT"));
        DecodedUnit reply = r.units().stream().filter(u -> u.summary().contains("REPLY to NFSv4 COMPOUND"))
                .findFirst().orElseThrow();
        assertThat(reply.layers().get("rpc").get("operations"))
                .isEqualTo(List.of("SEQUENCE OK", "PUTFH OK", "READ OK", "GETATTR OK"));
    }

    /**
     * Operations with nested unions and lists, arguments and results: each is stepped over by its
     * XDR layout, so the operation after it is named right. Encoded here from RFC 8881 §18.
     */
    @Test
    void operationsWithUnionsAndListsAreSteppedOver() throws Exception {
        Peer p = nfs();
        Xdr a = Nfs4Wire.compoundArgs(1, 4);
        a.u32(42).raw(bytes(8, 1)).opaque("client-owner".getBytes()).u32(0x103, 0) // EXCHANGE_ID, SP4_NONE
                .u32(1).opaque("kernel.org".getBytes()).opaque("Linux 6.1".getBytes()).u64(1).u32(0);
        a.u32(43).u64(7).u32(1, 2).u32(0, 1048576, 1048576, 4096, 8, 64, 0) // CREATE_SESSION, fore channel
                .u32(0, 4096, 4096, 0, 2, 16, 1, 8) // back channel with one rdma_ird
                .u32(0x40000000, 2, 0, 1, 0).opaque("host".getBytes()).u32(0, 0, 2, 10, 20); // AUTH_NONE, AUTH_SYS
        a.u32(58, 0); // RECLAIM_COMPLETE
        a.u32(24); // PUTROOTFH
        p.i(MpaWire.send(1, Nfs4Wire.rdmaMsg(0x90, 32, new Chunks(), Nfs4Wire.call(0x90, a.bytes()))));
        Xdr r = results(0, 4);
        r.u32(42, 0).u64(7).u32(1, 0x10001, 0).u64(3).opaque("major".getBytes()).opaque("scope".getBytes()).u32(0);
        r.u32(43, 0).raw(bytes(16, 2)).u32(1, 0).u32(0, 1048576, 1048576, 4096, 8, 64, 0)
                .u32(0, 4096, 4096, 0, 2, 16, 1, 8);
        r.u32(58, 0, 24, 0);
        p.r(MpaWire.send(1, Nfs4Wire.rdmaMsg(0x90, 8, new Chunks(), Nfs4Wire.reply(0x90, r.bytes()))));

        Xdr b = Nfs4Wire.compoundArgs(1, 6);
        Nfs4Wire.putfh(Nfs4Wire.sequence(b, 2));
        b.u32(18, 0, 2, 0).u64(7).opaque("open-owner".getBytes()) // OPEN: seqid, access, deny, owner
                .u32(1, 1).u32(2, 0x10, 0x2).opaque(bytes(12, 5)) // OPEN4_CREATE GUARDED4 fattr4
                .u32(0).opaque("file".getBytes()); // CLAIM_NULL
        b.u32(10); // GETFH
        b.u32(26).u64(0).raw(bytes(8, 6)).u32(4096, 8192, 2, 0x0010011a, 0x00b0a23a); // READDIR
        b.u32(12, 2, 0).u64(0).u64(-1L).u32(1, 0).raw(new byte[16]).u32(0).u64(7).opaque("lock-owner".getBytes());
        p.i(MpaWire.send(2, Nfs4Wire.rdmaMsg(0x91, 32, new Chunks(), Nfs4Wire.call(0x91, b.bytes()))));
        Xdr q = sequenceResult(results(10010, 6)).u32(PUTFH, 0);
        q.u32(18, 0).raw(bytes(16, 3)).u32(1).u64(1).u64(2).u32(4, 2, 0x10, 0x2) // stateid, cinfo, rflags, attrset
                .u32(2).raw(bytes(16, 4)).u32(0, 1).u64(1 << 20) // WRITE delegation, size limit
                .u32(0, 0, 0x1f).opaque("OWNER@".getBytes());
        q.u32(10, 0).opaque(bytes(28, 7)); // GETFH
        q.u32(26, 0).raw(bytes(8, 6)) // READDIR: two entries, eof
                .u32(1).u64(1).opaque("a".getBytes()).u32(1, 0x10).opaque(bytes(8, 1))
                .u32(1).u64(2).opaque("bb".getBytes()).u32(1, 0x10).opaque(bytes(8, 2)).u32(0, 1);
        q.u32(12, 10010).u64(0).u64(-1L).u32(2).u64(9).opaque("other".getBytes()); // LOCK4denied
        p.r(MpaWire.send(2, Nfs4Wire.rdmaMsg(0x91, 8, new Chunks(), Nfs4Wire.reply(0x91, q.bytes()))));

        DecodeReport rep = p.decode();
        assertThat(rep.violations()).isEmpty();
        assertThat(rep.notes()).isEmpty();
        assertThat(lines(rep)).anySatisfy(l -> assertThat(l).endsWith("| CALL NFSv4 COMPOUND minor 1: EXCHANGE_ID"
                + " CREATE_SESSION RECLAIM_COMPLETE PUTROOTFH"));
        assertThat(lines(rep)).anySatisfy(l -> assertThat(l).endsWith("SUCCESS NFS4_OK: EXCHANGE_ID OK,"
                + " CREATE_SESSION OK, RECLAIM_COMPLETE OK, PUTROOTFH OK"));
        assertThat(lines(rep)).anySatisfy(l -> assertThat(l).endsWith("| CALL NFSv4 COMPOUND minor 1: SEQUENCE PUTFH"
                + " OPEN GETFH READDIR LOCK"));
        assertThat(lines(rep)).anySatisfy(l -> assertThat(l).endsWith("SUCCESS NFS4ERR_DENIED: SEQUENCE OK, PUTFH OK,"
                + " OPEN OK, GETFH OK, READDIR OK, LOCK NFS4ERR_DENIED"));
    }

    /** An operation the walk has no layout for ends the naming there; nothing is misread or reported. */
    @Test
    void anUnknownOperationStopsTheWalk() throws Exception {
        Peer p = nfs();
        Xdr args = Nfs4Wire.compoundArgs(1, 3);
        Nfs4Wire.putfh(Nfs4Wire.sequence(args, 1)).u32(9999, 1, 2, 3);
        p.i(MpaWire.send(1, Nfs4Wire.rdmaMsg(0x20, 32, new Chunks(), Nfs4Wire.call(0x20, args.bytes()))));
        DecodeReport r = p.decode();
        assertThat(r.violations()).isEmpty();
        assertThat(lines(r)).anySatisfy(l -> assertThat(l).endsWith("| CALL NFSv4 COMPOUND minor 1: SEQUENCE PUTFH"
                + " op 9999 ... (not decoded further; the Call states 3 operations)"));
    }

    /** RFC 8267 §6.4.1 (ULB-R-018): two READs whose data went into each other's Write chunk. */
    @Test
    void writeChunksPairWithReadsInOrder() throws Exception {
        Peer p = nfs();
        Xdr args = Nfs4Wire.compoundArgs(1, 5);
        Nfs4Wire.read(Nfs4Wire.putfh(Nfs4Wire.read(Nfs4Wire.putfh(Nfs4Wire.sequence(args, 1)), 0, 100)), 0, 200);
        p.i(MpaWire.send(1, Nfs4Wire.rdmaMsg(0x30, 32, new Chunks().write(CHUNK_A).write(CHUNK_B),
                Nfs4Wire.call(0x30, args.bytes()))));
        rdmaWrite(p, CHUNK_A.handle(), CHUNK_A.offset(), bytes(200, 1)); // the second READ's data
        rdmaWrite(p, CHUNK_B.handle(), CHUNK_B.offset(), bytes(100, 1));
        Xdr res = sequenceResult(results(0, 5)).u32(PUTFH, 0, READ, 0, 0, 100, PUTFH, 0, READ, 0, 1, 200);
        p.r(MpaWire.send(1, Nfs4Wire.rdmaMsg(0x30, 8, new Chunks()
                .write(new Segment(CHUNK_A.handle(), 200, CHUNK_A.offset()))
                .write(new Segment(CHUNK_B.handle(), 100, CHUNK_B.offset())), Nfs4Wire.reply(0x30, res.bytes()))));
        DecodeReport r = p.decode();
        assertThat(ids(r)).containsExactly("ULB-R-018", "ULB-R-018");
        assertThat(r.violations().get(0).detail()).isEqualTo("READ (READ-type operation 1) returned 100 octets,"
                + " Write chunk 0 holds 200: the k-th Write chunk belongs to the k-th READ-type operation");
    }

    /** ULB-R-019: the READ's data came back inline although its Write chunk had segments. */
    static Peer readDataInlineDespiteChunk() {
        Peer p = nfs();
        Xdr args = Nfs4Wire.compoundArgs(1, 3);
        Nfs4Wire.read(Nfs4Wire.putfh(Nfs4Wire.sequence(args, 1)), 0, 100);
        p.i(MpaWire.send(1, Nfs4Wire.rdmaMsg(0x40, 32, new Chunks().write(CHUNK_A), Nfs4Wire.call(0x40,
                args.bytes()))));
        Xdr res = sequenceResult(results(0, 3)).u32(PUTFH, 0, READ, 0, 1).opaque(bytes(100, 4));
        return p.r(MpaWire.send(1, Nfs4Wire.rdmaMsg(0x40, 8, new Chunks().write(new Segment(CHUNK_A.handle(), 0,
                CHUNK_A.offset())), Nfs4Wire.reply(0x40, res.bytes()))));
    }

    /** ULB-R-021: a READLINK that failed, its Write chunk returned with octets in it. */
    static Peer failedReadlinkWithOctetsInItsChunk() {
        Peer p = nfs();
        Xdr args = Nfs4Wire.compoundArgs(1, 3);
        Nfs4Wire.putfh(Nfs4Wire.sequence(args, 1)).u32(READLINK);
        p.i(MpaWire.send(1, Nfs4Wire.rdmaMsg(0x50, 32, new Chunks().write(CHUNK_A), Nfs4Wire.call(0x50,
                args.bytes()))));
        rdmaWrite(p, CHUNK_A.handle(), CHUNK_A.offset(), bytes(12, 4));
        Xdr res = sequenceResult(results(NFS4ERR_IO, 3)).u32(PUTFH, 0, READLINK, NFS4ERR_IO);
        return p.r(MpaWire.send(1, Nfs4Wire.rdmaMsg(0x50, 8, new Chunks().write(new Segment(CHUNK_A.handle(), 12,
                CHUNK_A.offset())), Nfs4Wire.reply(0x50, res.bytes()))));
    }

    /** ULB-R-012: a Read chunk standing where the COMPOUND has a LOOKUP name, not WRITE data. */
    static Peer readChunkOfAnIneligibleArgument() {
        Peer p = nfs();
        Xdr args = Nfs4Wire.compoundArgs(1, 3);
        Nfs4Wire.putfh(Nfs4Wire.sequence(args, 1)).u32(LOOKUP, 8);
        int position = CALL_HEADER + args.size();
        p.i(MpaWire.send(1, Nfs4Wire.rdmaMsg(0x60, 32, new Chunks().read(position, new Segment(0x6102, 8, 0x5000)),
                Nfs4Wire.call(0x60, args.bytes()))));
        return p;
    }

    @Test
    void ineligibleItemsInChunksBothWays() throws Exception {
        DecodeReport call = readChunkOfAnIneligibleArgument().decode();
        assertThat(ids(call)).containsExactly("ULB-R-012");
        assertThat(call.violations().get(0).detail()).matches("a Read chunk at Position \\d+, where the COMPOUND has"
                + " no WRITE data or CREATE linkdata");

        // A COMPOUND without READ or READLINK whose Reply puts octets into the Write chunk it offered.
        Peer p = nfs();
        Xdr args = Nfs4Wire.compoundArgs(1, 3);
        Nfs4Wire.getattr(Nfs4Wire.putfh(Nfs4Wire.sequence(args, 1)));
        p.i(MpaWire.send(1, Nfs4Wire.rdmaMsg(0x61, 32, new Chunks().write(CHUNK_A), Nfs4Wire.call(0x61,
                args.bytes()))));
        rdmaWrite(p, CHUNK_A.handle(), CHUNK_A.offset(), bytes(16, 4));
        Xdr res = getattrResult(sequenceResult(results(0, 3)).u32(PUTFH, 0));
        p.r(MpaWire.send(1, Nfs4Wire.rdmaMsg(0x61, 8, new Chunks().write(new Segment(CHUNK_A.handle(), 16,
                CHUNK_A.offset())), Nfs4Wire.reply(0x61, res.bytes()))));
        DecodeReport reply = p.decode();
        assertThat(ids(reply)).containsExactly("ULB-R-012");
        assertThat(reply.violations().get(0).detail()).isEqualTo("Write chunk 0 returns 16 octets; the COMPOUND has"
                + " 0 READ or READLINK operations, nothing else may use a Write chunk");
    }

    @Test
    void resultsAndErrorsAgainstTheirChunks() throws Exception {
        DecodeReport inline = readDataInlineDespiteChunk().decode();
        assertThat(ids(inline)).containsExactly("ULB-R-019");
        assertThat(inline.violations().get(0).detail()).isEqualTo("READ (READ-type operation 1) returned 100 octets"
                + " inline; the Call offered Write chunk 0 for them");
        DecodeReport failed = failedReadlinkWithOctetsInItsChunk().decode();
        assertThat(ids(failed)).containsExactly("ULB-R-021");
        assertThat(lines(failed)).anySatisfy(l -> assertThat(l).endsWith("SUCCESS NFS4ERR_IO: SEQUENCE OK, PUTFH OK,"
                + " READLINK NFS4ERR_IO"));
    }

    /** RPC-R-081: an RDMA Write past the end of the segment the Call offered. */
    static Peer writeBeyondItsSegment() {
        Peer p = nfs();
        Xdr args = Nfs4Wire.compoundArgs(1, 3);
        Nfs4Wire.read(Nfs4Wire.putfh(Nfs4Wire.sequence(args, 1)), 0, 100);
        p.i(MpaWire.send(1, Nfs4Wire.rdmaMsg(0x70, 32, new Chunks().write(CHUNK_A), Nfs4Wire.call(0x70,
                args.bytes()))));
        p.r(MpaWire.write(CHUNK_A.handle(), CHUNK_A.offset() + 8100, bytes(100, 1)));
        return p;
    }

    /** RPC-R-082: an RDMA Read Request of a handle no Call offered. */
    static Peer readOfAnUnofferedHandle() {
        Peer p = nfs();
        Xdr args = Nfs4Wire.compoundArgs(1, 4);
        Nfs4Wire.putfh(Nfs4Wire.sequence(args, 1)).u32(WRITE).raw(new byte[16]).u64(0).u32(2, 3000);
        int position = CALL_HEADER + args.size();
        Nfs4Wire.getattr(args);
        p.i(MpaWire.send(1, Nfs4Wire.rdmaMsg(0x71, 32, new Chunks().read(position, WRITE_DATA),
                Nfs4Wire.call(0x71, args.bytes()))));
        p.r(MpaWire.readRequest(1, 0x9001, 0x1000, 3000, WRITE_DATA.handle() + 1, WRITE_DATA.offset()));
        readResponse(p, 0x9001, 0x1000, bytes(3000, 2));
        return p;
    }

    @Test
    void rdmaTransfersOutsideTheOfferedSegments() throws Exception {
        DecodeReport beyond = writeBeyondItsSegment().decode();
        assertThat(ids(beyond)).containsExactly("RPC-R-081");
        assertThat(beyond.violations().get(0).detail()).isEqualTo("RDMA Write of 100 octets to STag 0x00005101 TO"
                + " 0x7f0000002fa4: beyond the offered segment 0x00005101:8192@0x7f0000001000");

        Peer p = nfs();
        p.i(MpaWire.send(1, Nfs4Wire.rdmaMsg(0x72, 32, new Chunks().write(CHUNK_A), Nfs4Wire.call(0x72,
                Nfs4Wire.read(Nfs4Wire.putfh(Nfs4Wire.sequence(Nfs4Wire.compoundArgs(1, 3), 1)), 0, 100).bytes()))));
        p.r(MpaWire.write(0x7777, 0, bytes(100, 1)));
        DecodeReport unknown = p.decode();
        assertThat(ids(unknown)).containsExactly("RPC-R-081");
        assertThat(unknown.violations().get(0).detail()).endsWith("no outstanding Call offered that handle in a Write"
                + " or Reply chunk");

        DecodeReport read = readOfAnUnofferedHandle().decode();
        assertThat(ids(read)).containsExactly("RPC-R-082");
        assertThat(read.violations().get(0).detail()).isEqualTo("RDMA Read Request of 3000 octets from STag"
                + " 0x00006102 TO 0x7f0000009000: no outstanding Call offered that handle in a Read chunk");
    }

    /** RPC-R-028: the Reply says the READ's data is in the Write chunk, but no RDMA Write put it there. */
    @Test
    void aReplyClaimingOctetsNoRdmaWritePlaced() throws Exception {
        Peer p = nfs();
        readCompound(p, 1, 0x80);
        // Remove the four Write segments of the first READ: the Reply still says 4096 octets.
        List<SyntheticCapture.Segment> s = p.capture.segments;
        s.removeIf(x -> !x.fromClient() && x.payload().length > 1000);
        // Removing segments leaves a hole in the sequence numbers: renumber the server's stream.
        long seq = -1;
        for (int i = 0; i < s.size(); i++) {
            SyntheticCapture.Segment x = s.get(i);
            if (x.fromClient() || x.payload().length == 0) {
                continue;
            }
            if (seq < 0) {
                seq = x.sequence();
            }
            s.set(i, new SyntheticCapture.Segment(x.clientPort(), x.serverPort(), false, seq & 0xffffffffL,
                    x.flags(), x.mss(), x.payload()));
            seq += x.payload().length;
        }
        DecodeReport r = p.decode();
        assertThat(ids(r)).containsExactly("RPC-R-028");
        assertThat(r.violations().get(0).detail()).isEqualTo("Write chunk 0 returned with 4096 octets, RDMA Writes"
                + " placed 0 in it");
    }

    /** The RPC Call of the callback program 0x40000000 version 1 (RFC 8881 §20), AUTH_NONE. */
    static byte[] callbackCall(int xid, int procedure, byte[] args) {
        return new Xdr().u32(xid, 0, 2, 0x40000000, 1, procedure, 0, 0, 0, 0).raw(args).bytes();
    }

    /**
     * The backward direction (RFC 8167): the server calls the client's callback program on the same
     * connection. CB_NULL, then a CB_COMPOUND whose arguments and results the walk must step over
     * exactly (CB_SEQUENCE with referring calls, CB_GETATTR with its attributes, CB_RECALL_ANY,
     * CB_NOTIFY_LOCK, CB_RECALL) for the operation after each to be named right.
     */
    @Test
    void backwardCallbacksAreNamedOperationByOperation() throws Exception {
        Peer p = nfs();
        // The Initiator's FPDU comes first (MPA-R-061): the client's NULL.
        p.i(MpaWire.send(1, Nfs4Wire.rdmaMsg(0x1f, 32, new Chunks(), new Xdr().u32(0x1f, 0, 2, 100003, 4, 0, 0, 0, 0, 0)
                .bytes())));
        p.r(MpaWire.send(1, Nfs4Wire.rdmaMsg(0x1f, 8, new Chunks(), Nfs4Wire.reply(0x1f, new byte[0]))));
        p.r(MpaWire.send(2, Nfs4Wire.rdmaMsg(0x20, 2, new Chunks(), callbackCall(0x20, 0, new byte[0]))));
        p.i(MpaWire.send(2, Nfs4Wire.rdmaMsg(0x20, 16, new Chunks(), Nfs4Wire.reply(0x20, new byte[0]))));
        Xdr args = new Xdr().u32(0, 1, 7, 5); // empty tag, minor version 1, callback_ident 7, 5 operations
        args.u32(11).raw(bytes(16, 7)).u32(1, 0, 0, 0) // CB_SEQUENCE: session, sequence, slot, highest, cachethis
                .u32(1).raw(bytes(16, 7)).u32(2, 4, 0, 5, 1); // one list of two referring calls
        args.u32(3).opaque(bytes(12, 3)).u32(2, 0x18, 0x0); // CB_GETATTR: fh, bitmap (size, change)
        args.u32(8).u32(4).u32(1, 0x3); // CB_RECALL_ANY: keep 4, type mask
        args.u32(13).opaque(bytes(12, 3)).u64(0x1122334455667788L).opaque(bytes(5, 9)); // CB_NOTIFY_LOCK
        args.u32(4).raw(bytes(16, 4)).u32(0).opaque(bytes(12, 3)); // CB_RECALL: stateid, truncate, fh
        p.r(MpaWire.send(3, Nfs4Wire.rdmaMsg(0x21, 2, new Chunks(), callbackCall(0x21, 1, args.bytes()))));
        Xdr res = new Xdr().u32(0, 0, 5);
        res.u32(11, 0).raw(bytes(16, 7)).u32(1, 0, 15, 15);
        res.u32(3, 0).u32(2, 0x18, 0x0).opaque(bytes(16, 2));
        res.u32(8, 0, 13, 0, 4, 0);
        p.i(MpaWire.send(3, Nfs4Wire.rdmaMsg(0x21, 16, new Chunks(), Nfs4Wire.reply(0x21, res.bytes()))));
        // An operation the walk has no layout for ends it; the names before it stand.
        Xdr unknown = new Xdr().u32(0, 2, 0, 3).u32(11).raw(bytes(16, 7)).u32(2, 0, 0, 0, 0).u32(99, 1, 2);
        p.r(MpaWire.send(4, Nfs4Wire.rdmaMsg(0x22, 2, new Chunks(), callbackCall(0x22, 1, unknown.bytes()))));
        p.i(MpaWire.send(4, Nfs4Wire.rdmaMsg(0x22, 16, new Chunks(), Nfs4Wire.reply(0x22,
                new Xdr().u32(10044, 0, 1, 10044, 10044).bytes()))));

        DecodeReport r = p.decode();
        assertThat(r.violations()).isEmpty();
        assertThat(r.notes()).isEmpty();
        List<String> rpc = r.units().stream().map(DecodedUnit::summary).filter(l -> l.contains(" | "))
                .map(l -> l.substring(l.lastIndexOf(" | ") + 3)).skip(2).collect(Collectors.toList());
        assertThat(rpc).hasSize(6);
        assertThat(rpc.get(0)).isEqualTo("CALL NFSv4 callback CB_NULL");
        assertThat(rpc.get(1)).matches("REPLY to NFSv4 callback CB_NULL \\(frame \\d+\\) SUCCESS");
        assertThat(rpc.get(2)).isEqualTo("CALL NFSv4 callback CB_COMPOUND minor 1: CB_SEQUENCE CB_GETATTR"
                + " CB_RECALL_ANY CB_NOTIFY_LOCK CB_RECALL");
        assertThat(rpc.get(3)).matches("REPLY to NFSv4 callback CB_COMPOUND \\(frame \\d+\\) SUCCESS NFS4_OK:"
                + " CB_SEQUENCE OK, CB_GETATTR OK, CB_RECALL_ANY OK, CB_NOTIFY_LOCK OK, CB_RECALL OK");
        assertThat(rpc.get(4)).isEqualTo("CALL NFSv4 callback CB_COMPOUND minor 2: CB_SEQUENCE cb op 99"
                + " ... (not decoded further; the Call states 3 operations)");
        assertThat(rpc.get(5)).matches("REPLY to NFSv4 callback CB_COMPOUND \\(frame \\d+\\) SUCCESS"
                + " NFS4ERR_OP_ILLEGAL: CB_ILLEGAL NFS4ERR_OP_ILLEGAL");
        assertThat(r.units()).filteredOn(u -> u.summary().contains("CALL NFSv4 callback"))
                .allSatisfy(u -> assertThat(u.direction()).isEqualTo("R>I"));
    }

    /** RFC 8267 §6.5 (ULB-R-012): no callback operation has a DDP-eligible result, so no Write chunk carries one. */
    @Test
    void aCallbackReplyThatFillsAWriteChunkIsReported() throws Exception {
        Peer p = nfs();
        p.i(MpaWire.send(1, Nfs4Wire.rdmaMsg(0x1f, 32, new Chunks(), new Xdr().u32(0x1f, 0, 2, 100003, 4, 0, 0, 0, 0, 0)
                .bytes())));
        p.r(MpaWire.send(1, Nfs4Wire.rdmaMsg(0x1f, 8, new Chunks(), Nfs4Wire.reply(0x1f, new byte[0]))));
        Xdr args = new Xdr().u32(0, 1, 0, 1).u32(4).raw(bytes(16, 4)).u32(0).opaque(bytes(12, 3)); // CB_RECALL
        p.r(MpaWire.send(2, Nfs4Wire.rdmaMsg(0x21, 2, new Chunks().write(CHUNK_B), callbackCall(0x21, 1,
                args.bytes()))));
        p.i(MpaWire.tagged(0, true, CHUNK_B.handle(), CHUNK_B.offset(), bytes(512, 1))); // the client's RDMA Write
        p.i(MpaWire.send(2, Nfs4Wire.rdmaMsg(0x21, 16, new Chunks().write(new Segment(CHUNK_B.handle(), 512,
                CHUNK_B.offset())), Nfs4Wire.reply(0x21, new Xdr().u32(0, 0, 1, 4, 0).bytes()))));

        DecodeReport r = p.decode();
        assertThat(ids(r)).containsExactly("ULB-R-012");
        assertThat(r.violations().get(0).direction()).isEqualTo("I>R");
        assertThat(r.violations().get(0).detail()).isEqualTo("Write chunk 0 returns 512 octets; no callback operation"
                + " has a DDP-eligible result (RFC 8267 §6.5)");
        assertThat(lines(r)).anySatisfy(l -> assertThat(l).startsWith("Write STag 0x00005102 ")
                .endsWith(" -> xid 0x00000021 write chunk 0"));
    }
}
