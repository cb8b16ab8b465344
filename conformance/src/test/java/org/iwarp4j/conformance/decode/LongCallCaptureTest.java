package org.iwarp4j.conformance.decode;

import static org.assertj.core.api.Assertions.assertThat;
import static org.iwarp4j.conformance.decode.Nfs4Wire.bytes;

import java.util.Arrays;
import java.util.List;
import java.util.stream.Collectors;
import org.iwarp4j.conformance.decode.Nfs4Wire.Chunks;
import org.iwarp4j.conformance.decode.Nfs4Wire.Segment;
import org.iwarp4j.conformance.decode.Nfs4Wire.Xdr;
import org.iwarp4j.conformance.decode.SyntheticCapturesTest.Peer;
import org.iwarp4j.conformance.decode.internal.LookupSteps;
import org.junit.jupiter.api.Test;

/**
 * Long Calls (RFC 8166 §3.5.3, RPC-R-031, RPC-R-033): the Requester sends RDMA_NOMSG with its whole
 * RPC message in a Read chunk at Position zero, and the Responder pulls it with RDMA Reads. The
 * decoder puts the Read Responses back together, decodes the Call at the Response that completes
 * it, and names its Reply by it; a message the capture does not hold whole is not guessed.
 */
class LongCallCaptureTest {

    private static final int WRITE3 = 7;
    /** The message's first 1,000 octets in one segment, the rest in another. */
    private static final Segment HEAD = new Segment(0x8101, 1000, 0x7f00_0003_0000L);
    private static final int SINK_STAG = 0x9101;

    /** An NFSv3 WRITE of {@code count} octets, data inline in the RPC message (which then goes in a chunk). */
    private static byte[] write3Call(int xid, int count) {
        byte[] args = new Xdr().opaque(bytes(32, 4)).u64(0).u32(count, 0).opaque(bytes(count, 5)).bytes();
        return Nfs4Wire.call(xid, 3, WRITE3, args);
    }

    /** WRITE3res: NFS3_OK, empty wcc_data, count, UNSTABLE, verifier. */
    private static byte[] write3Reply(int xid, int count) {
        return Nfs4Wire.reply(xid, new Xdr().u32(0, 0, 0, count, 0).raw(bytes(8, 6)).bytes());
    }

    private static Segment tail(byte[] message) {
        return new Segment(0x8102, message.length - HEAD.length(), 0x7f00_0004_0000L);
    }

    /** The RDMA_NOMSG Call offering {@code message} in a Position-zero chunk of two segments. */
    private static void longCall(Peer p, int msn, int xid, byte[] message) {
        p.i(MpaWire.send(msn, Nfs4Wire.rdmaNomsg(xid, 32, new Chunks().read(0, HEAD).read(0, tail(message)))));
    }

    /**
     * The server reads the chunk's second segment, then its first (a Responder may read them in any
     * order), into one sink buffer; the client answers each in Response segments of 1,024 octets.
     * {@code lost} Response octets at the start of the second Read are left out of the capture.
     */
    private static void read(Peer p, int readMsn, byte[] message, int lost) {
        Segment tail = tail(message);
        p.r(MpaWire.readRequest(readMsn, SINK_STAG, 0x2000, tail.length(), tail.handle(), tail.offset()));
        Nfs4CompoundCaptureTest.readResponse(p, SINK_STAG, 0x2000, Arrays.copyOfRange(message, HEAD.length(),
                message.length));
        p.r(MpaWire.readRequest(readMsn + 1, SINK_STAG, 0x0, HEAD.length(), HEAD.handle(), HEAD.offset()));
        if (lost == 0) {
            Nfs4CompoundCaptureTest.readResponse(p, SINK_STAG, 0x0, Arrays.copyOf(message, HEAD.length()));
        } else {
            p.i(MpaWire.readResponse(SINK_STAG, 0x0, Arrays.copyOf(message, lost), false));
            SyntheticCapture.Segment gone = p.capture.segments.get(p.capture.segments.size() - 1);
            p.i(MpaWire.readResponse(SINK_STAG, lost, Arrays.copyOfRange(message, lost, HEAD.length()), true));
            p.capture.segments.remove(gone);
        }
    }

    /** A WRITE Long Call, its Reads ({@code lost} octets not captured, see {@link #read}) and its Reply. */
    private static DecodeReport write3Exchange(int xid, byte[] message, int lost) throws Exception {
        Peer p = Nfs4CompoundCaptureTest.nfs();
        longCall(p, 1, xid, message);
        read(p, 1, message, lost);
        p.r(MpaWire.send(1, Nfs4Wire.rdmaMsg(xid, 8, new Chunks(), write3Reply(xid, 3000))));
        return p.decode();
    }

    private static List<String> lines(DecodeReport r) {
        return r.units().stream().map(DecodedUnit::summary).collect(Collectors.toList());
    }

    private static DecodedUnit unit(DecodeReport r, String text) {
        return r.units().stream().filter(u -> u.summary().contains(text)).findFirst().orElseThrow();
    }

    @Test
    void anNfs3WriteSentAsALongCallIsDecodedWhenItsLastOctetsArrive() throws Exception {
        byte[] message = write3Call(0x50, 3000);
        DecodeReport r = write3Exchange(0x50, message, 0);
        assertThat(r.violations()).isEmpty();
        assertThat(r.notes()).isEmpty();
        DecodedUnit call = unit(r, "RDMA_NOMSG xid 0x00000050");
        assertThat(call.summary()).endsWith("| CALL (in a chunk)");
        List<String> complete = lines(r).stream().filter(l -> l.contains("Long Call")).toList();
        assertThat(complete).as("only the Response with the last missing octets completes it").hasSize(1);
        DecodedUnit last = unit(r, "| Long Call xid 0x00000050");
        assertThat(last.summary()).startsWith("Read Response STag 0x00009101 TO 0x0 len " + HEAD.length() + " L")
                .endsWith(" -> xid 0x00000050 read chunk @0 | Long Call xid 0x00000050 (frame "
                + call.frame() + ") complete: CALL NFSv3 WRITE");
        assertThat(last.layers().get("rpc")).containsEntry("type", "CALL").containsEntry("xid", "0x00000050")
                .containsEntry("program", 100003).containsEntry("version", 3).containsEntry("procedure", WRITE3)
                .containsEntry("longCallOctets", message.length);
        assertThat(unit(r, "RDMA_MSG xid 0x00000050").summary()).endsWith("| REPLY to NFSv3 WRITE (frame "
                + call.frame() + ") SUCCESS NFS3_OK");
    }

    @Test
    void anNfs4CompoundSentAsALongCallNamesEveryOperation() throws Exception {
        Peer p = Nfs4CompoundCaptureTest.nfs();
        Xdr args = Nfs4Wire.compoundArgs(1, 4);
        Nfs4Wire.putfh(Nfs4Wire.sequence(args, 1)).u32(Nfs4Wire.WRITE).raw(new byte[16]).u64(0).u32(2)
                .opaque(bytes(2000, 3)); // FILE_SYNC, the data inline
        Nfs4Wire.getattr(args);
        byte[] message = Nfs4Wire.call(0x60, args.bytes());
        longCall(p, 1, 0x60, message);
        read(p, 1, message, 0);

        DecodeReport r = p.decode();
        assertThat(r.violations()).isEmpty();
        assertThat(unit(r, "| Long Call xid 0x00000060").summary())
                .endsWith("complete: CALL NFSv4 COMPOUND minor 1: SEQUENCE PUTFH WRITE GETATTR");
    }

    /** The capture lost a Response segment: the Call stays undecoded, and nothing is made up. */
    @Test
    void aLongCallTheCaptureDoesNotHoldWholeIsNotDecoded() throws Exception {
        byte[] message = write3Call(0x51, 3000);
        DecodeReport r = write3Exchange(0x51, message, 200);
        assertThat(lines(r)).noneSatisfy(l -> assertThat(l).contains("Long Call"));
        assertThat(unit(r, "RDMA_MSG xid 0x00000051").summary()).contains("| REPLY to (in a chunk) (frame ");
    }

    @Test
    void aLongCallWhoseRpcXidDiffersFromItsTransportXidIsAViolation() throws Exception {
        Peer p = Nfs4CompoundCaptureTest.nfs();
        byte[] message = write3Call(0x99, 3000);
        longCall(p, 1, 0x52, message);
        read(p, 1, message, 0);

        DecodeReport r = p.decode();
        assertThat(r.violations()).singleElement().satisfies(v -> {
            assertThat(v.check()).isEqualTo(Check.RPC_XID);
            assertThat(v.detail()).startsWith("rdma_xid 0x00000052 (frame ").endsWith("), RPC xid 0x00000099 in its"
                    + " Long Call");
        });
    }

    /** A Long Call larger than what the decoder holds at once is noted, and its Reads are not kept. */
    @Test
    void aLongCallBeyondTheBudgetIsNotedNotHeld() throws Exception {
        Peer p = Nfs4CompoundCaptureTest.nfs();
        Segment huge = new Segment(0x8103, (16 << 20) + 1, 0x7f00_0005_0000L);
        p.i(MpaWire.send(1, Nfs4Wire.rdmaNomsg(0x53, 32, new Chunks().read(0, huge))));

        DecodeReport r = p.decode();
        assertThat(r.notes()).singleElement().satisfies(n -> assertThat(n.text()).isEqualTo("the Long Call xid"
                + " 0x00000053 is beyond the decoder's budget of 16777216 octets of Long Calls held at once: its"
                + " message is not decoded"));
    }

    /**
     * 100 Long Calls of 2,601 segments each, all but one of zero length (they cost nothing against
     * the 16 MiB budget), then the last one read in 40,000 Response segments of one octet: each
     * Response segment used to walk every segment of every Long Call before it, 10^10 steps in all
     * (minutes). Found by handle, it costs log n: the steps the lookups take are counted, not
     * timed, so the bound holds on any machine (RPC-R-031, RPC-R-033).
     */
    @Test
    void responsesFindTheirLongCallWithoutWalkingEverySegment() throws Exception {
        Peer p = Nfs4CompoundCaptureTest.nfs();
        byte[] message = write3Call(0x70, 40_000 - 100);
        int calls = 100;
        Segment read = null;
        for (int c = 0; c < calls; c++) {
            read = new Segment(0x8200 + c, message.length, 0x7f00_0006_0000L);
            Chunks chunks = new Chunks().read(0, read);
            for (int i = 0; i < 2_600; i++) {
                chunks.read(0, new Segment(0x9200 + c, 0, 0x7f00_0007_0000L + i));
            }
            p.i(MpaWire.send(c + 1, Nfs4Wire.rdmaNomsg(c == calls - 1 ? 0x70 : 0x1000 + c, 32, chunks)));
        }
        p.r(MpaWire.readRequest(1, SINK_STAG, 0, message.length, read.handle(), read.offset()));
        for (int i = 0; i < message.length; i++) {
            p.i(MpaWire.readResponse(SINK_STAG, i, new byte[] {message[i]}, i == message.length - 1));
        }

        long before = LookupSteps.ofThisThread();
        DecodeReport r = p.decode();
        assertThat(LookupSteps.ofThisThread() - before).as("index steps for %d Response segments", message.length)
                .isPositive().isLessThan(64L * message.length);
        assertThat(lines(r).stream().filter(l -> l.contains("Long Call"))).singleElement().satisfies(l -> assertThat(l)
                .startsWith("Read Response STag 0x00009101 TO 0x" + Integer.toHexString(message.length - 1) + " len 1 L")
                .endsWith(") complete: CALL NFSv3 WRITE"));
    }
}
