package org.iwarp4j.conformance.decode;

import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;

/**
 * Builds RPC-over-RDMA messages carrying NFSv4 COMPOUNDs for synthetic captures, written out from
 * the XDR of RFC 8166 §4 (transport header, chunk lists), RFC 5531 (RPC headers with AUTH_NONE) and
 * RFC 8881 §16-18 (COMPOUND4args, COMPOUND4res), independently of the decoder under test.
 */
final class Nfs4Wire {

    static final int SEQUENCE = 53;
    static final int PUTFH = 22;
    static final int READ = 25;
    static final int READLINK = 27;
    static final int WRITE = 38;
    static final int GETATTR = 9;
    static final int LOOKUP = 15;
    static final int NFS4ERR_NOENT = 2;
    static final int NFS4ERR_IO = 5;
    /** The RPC call header with AUTH_NONE credential and verifier: 10 words, so arguments start at Position 40. */
    static final int CALL_HEADER = 40;

    private Nfs4Wire() {
    }

    /** XDR, big-endian words. */
    static final class Xdr {
        private final ByteArrayOutputStream out = new ByteArrayOutputStream();

        Xdr u32(int... words) {
            for (int w : words) {
                out.writeBytes(ByteBuffer.allocate(4).putInt(w).array());
            }
            return this;
        }

        Xdr u64(long v) {
            out.writeBytes(ByteBuffer.allocate(8).putLong(v).array());
            return this;
        }

        Xdr raw(byte[] b) {
            out.writeBytes(b);
            return this;
        }

        /** A variable-length opaque with its padding. */
        Xdr opaque(byte[] b) {
            u32(b.length).raw(b);
            return raw(new byte[(4 - b.length % 4) % 4]);
        }

        int size() {
            return out.size();
        }

        byte[] bytes() {
            return out.toByteArray();
        }
    }

    static byte[] bytes(int n, int seed) {
        byte[] b = new byte[n];
        for (int i = 0; i < n; i++) {
            b[i] = (byte) (i * 31 + seed);
        }
        return b;
    }

    /** COMPOUND4args: empty tag, minor version, the operations as already encoded. */
    static Xdr compoundArgs(int minor, int count) {
        return new Xdr().u32(0, minor, count);
    }

    /** SEQUENCE4args: session, sequence, slot, highest slot, cachethis. */
    static Xdr sequence(Xdr x, int seq) {
        return x.u32(SEQUENCE).raw(bytes(16, 7)).u32(seq, 0, 0, 0);
    }

    static Xdr putfh(Xdr x) {
        return x.u32(PUTFH).opaque(bytes(12, 3));
    }

    /** READ4args: stateid, offset, count. */
    static Xdr read(Xdr x, long offset, int count) {
        return x.u32(READ).raw(new byte[16]).u64(offset).u32(count);
    }

    static Xdr getattr(Xdr x) {
        return x.u32(GETATTR).u32(2, 0x0010011a, 0x00b0a23a);
    }

    /** The RPC Call of COMPOUND (program 100003 version 4 procedure 1), AUTH_NONE. */
    static byte[] call(int xid, byte[] args) {
        return new Xdr().u32(xid, 0, 2, 100003, 4, 1, 0, 0, 0, 0).raw(args).bytes();
    }

    /** The RPC Call of an NFS procedure (program 100003) of any version, AUTH_NONE. */
    static byte[] call(int xid, int version, int procedure, byte[] args) {
        return new Xdr().u32(xid, 0, 2, 100003, version, procedure, 0, 0, 0, 0).raw(args).bytes();
    }

    /** An accepted, successful RPC Reply with these results. */
    static byte[] reply(int xid, byte[] results) {
        return new Xdr().u32(xid, 1, 0, 0, 0, 0).raw(results).bytes();
    }

    /** One RDMA segment: handle, length, offset. */
    record Segment(int handle, int length, long offset) {
    }

    /** The chunk lists of a transport header (RFC 8166 §4.3). */
    static final class Chunks {
        private final List<long[]> reads = new ArrayList<>();
        private final List<List<Segment>> writes = new ArrayList<>();
        private List<Segment> reply;

        Chunks read(int position, Segment s) {
            reads.add(new long[] {position, s.handle(), s.length(), s.offset()});
            return this;
        }

        Chunks write(Segment... segments) {
            writes.add(List.of(segments));
            return this;
        }

        Chunks reply(Segment... segments) {
            reply = List.of(segments);
            return this;
        }

        void encode(Xdr x) {
            for (long[] r : reads) {
                x.u32(1, (int) r[0], (int) r[1], (int) r[2]).u64(r[3]);
            }
            x.u32(0);
            for (List<Segment> w : writes) {
                x.u32(1, w.size());
                w.forEach(s -> x.u32(s.handle(), s.length()).u64(s.offset()));
            }
            x.u32(0);
            if (reply == null) {
                x.u32(0);
            } else {
                x.u32(1, reply.size());
                reply.forEach(s -> x.u32(s.handle(), s.length()).u64(s.offset()));
            }
        }
    }

    /** RDMA_NOMSG: xid, version 1, credits, procedure 1, chunk lists; the RPC message travels in a chunk. */
    static byte[] rdmaNomsg(int xid, int credits, Chunks chunks) {
        Xdr x = new Xdr().u32(xid, 1, credits, 1);
        chunks.encode(x);
        return x.bytes();
    }

    /** RDMA_MSG: xid, version 1, credits, procedure 0, chunk lists, the RPC message. */
    static byte[] rdmaMsg(int xid, int credits, Chunks chunks, byte[] rpc) {
        Xdr x = new Xdr().u32(xid, 1, credits, 0);
        chunks.encode(x);
        return x.raw(rpc).bytes();
    }
}
