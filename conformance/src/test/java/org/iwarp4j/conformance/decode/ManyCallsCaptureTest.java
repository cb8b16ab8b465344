package org.iwarp4j.conformance.decode;

import static org.assertj.core.api.Assertions.assertThat;

import org.iwarp4j.conformance.decode.Nfs4Wire.Chunks;
import org.iwarp4j.conformance.decode.Nfs4Wire.Segment;
import org.iwarp4j.conformance.decode.Nfs4Wire.Xdr;
import org.iwarp4j.conformance.decode.SyntheticCapturesTest.Peer;
import org.iwarp4j.conformance.decode.internal.LookupSteps;
import org.junit.jupiter.api.Test;

/**
 * A capture from a stranger may hold any number of Calls that are never answered. Matching an RDMA
 * Write to the segment it lands in (RPC-R-081) must not cost a look at every outstanding Call, and
 * the decoder keeps at most 16384 of them.
 */
class ManyCallsCaptureTest {

    private static final int CALLS = 50_000;
    private static final int KEPT = 1 << 14;
    private static final int WRITES = 16_000;
    private static final int READ3 = 6;

    private static Segment segment(int k) {
        return new Segment(0x10000 + k, 4096, 0x7f00_0000_0000L + 4096L * k);
    }

    @Test
    void writesIntoTheChunksOfManyUnansweredCallsAreMatchedInBoundedTime() throws Exception {
        Peer p = Nfs4CompoundCaptureTest.nfs();
        byte[] args = new Xdr().opaque(new byte[32]).u64(0).u32(4096).bytes();
        p.i(MpaWire.send(1, Nfs4Wire.rdmaMsg(1, 32, new Chunks(), Nfs4Wire.call(1, 3, 0, new byte[0]))));
        p.r(MpaWire.send(1, Nfs4Wire.rdmaMsg(1, 1 << 20, new Chunks(), Nfs4Wire.reply(1, new byte[0]))));
        for (int k = 0; k < CALLS; k++) {
            int xid = 2 + k;
            p.i(MpaWire.send(2 + k, Nfs4Wire.rdmaMsg(xid, 32, new Chunks().write(segment(k)),
                    Nfs4Wire.call(xid, 3, READ3, args))));
        }
        for (int j = 0; j < WRITES; j++) {
            Segment s = segment(CALLS - 1 - j); // the newest Calls: the last a scan in Call order would reach
            p.r(MpaWire.write(s.handle(), s.offset() + 64, new byte[16]));
        }
        Segment forgotten = segment(0);
        p.r(MpaWire.write(forgotten.handle(), forgotten.offset(), new byte[16]));
        byte[] capture = p.capture.pcap(false);

        // Scanning every outstanding Call for every Write took 22 s here, the index 2; a timeout of 10 s
        // failed on a loaded machine, so the steps of the lookups are counted instead (RPC-R-081).
        long before = LookupSteps.ofThisThread();
        DecodeReport r = CaptureDecoder.decode(capture, DecodeOptions.DEFAULT);
        assertThat(LookupSteps.ofThisThread() - before).as("index steps for %d Writes", WRITES + 1)
                .isPositive().isLessThan(64L * (WRITES + 1));
        assertThat(r.violations()).isEmpty(); // the Write into a forgotten Call's chunk is not held against it
        assertThat(r.units().stream().filter(u -> u.summary().endsWith(" write chunk 0")).count()).isEqualTo(WRITES);
        assertThat(r.notes()).singleElement().satisfies(n -> assertThat(n.text()).isEqualTo("more than " + KEPT
                + " Calls outstanding: the oldest (xid 0x00000002, frame 7) and those that follow it are forgotten,"
                + " and RDMA transfers and Replies that match no Call are not reported from here on"));
    }
}
