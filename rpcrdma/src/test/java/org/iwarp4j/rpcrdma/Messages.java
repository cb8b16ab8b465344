package org.iwarp4j.rpcrdma;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import org.iwarp4j.oncrpc.sample.EchoProgram;
import org.iwarp4j.rpcrdma.internal.wire.RpcRdmaHeader;
import org.iwarp4j.rpcrdma.internal.wire.RpcRdmaHeaderEncoder;
import org.iwarp4j.testkit.Hex;

/** Hand-made RPC and RPC-over-RDMA octets for the raw-peer tests. */
final class Messages {

    private Messages() {
    }

    /** An RPC Call with AUTH_NONE: xid, CALL, 2, prog, vers, proc, cred, verf, then {@code args}. */
    static byte[] call(int xid, int program, int version, int procedure, byte[] args) {
        ByteBuf b = Unpooled.buffer();
        b.writeInt(xid).writeInt(0).writeInt(2).writeInt(program).writeInt(version).writeInt(procedure);
        b.writeLong(0).writeLong(0).writeBytes(args);
        return ByteBufUtil.getBytes(b);
    }

    static byte[] echoCall(int xid, int procedure, byte[] args) {
        return call(xid, EchoProgram.PROGRAM, EchoProgram.VERSION, procedure, args);
    }

    /** An accepted, successful RPC Reply with {@code results}. */
    static byte[] reply(int xid, byte[] results) {
        ByteBuf b = Unpooled.buffer();
        b.writeInt(xid).writeInt(1).writeInt(0).writeLong(0).writeInt(0).writeBytes(results);
        return ByteBufUtil.getBytes(b);
    }

    static byte[] words(int... words) {
        ByteBuf b = Unpooled.buffer();
        for (int w : words) {
            b.writeInt(w);
        }
        return ByteBufUtil.getBytes(b);
    }

    static byte[] hex(String hex) {
        return Hex.decode(hex);
    }

    static byte[] header(RpcRdmaHeader h) {
        ByteBuf b = Unpooled.buffer();
        RpcRdmaHeaderEncoder.encode(h, b);
        return ByteBufUtil.getBytes(b);
    }

    static byte[] concat(byte[]... parts) {
        ByteBuf b = Unpooled.buffer();
        for (byte[] p : parts) {
            b.writeBytes(p);
        }
        return ByteBufUtil.getBytes(b);
    }

    /** The fixed words of a transport header: xid, vers, credits, proc. */
    static byte[] fixed(int xid, int version, int credits, int procedure) {
        return words(xid, version, credits, procedure);
    }

    /**
     * The chunk lists of an RDMA_MSG Call with no Read list, one Write chunk of {@code segments}
     * segments of {@code segment} octets each, one after the other in {@code sink}, and no Reply
     * chunk (RFC 8166 §3.4.6).
     */
    static byte[] oneWriteChunk(org.iwarp4j.rdmap.MemoryRegion sink, int segments, int segment) {
        int[] lists = new int[3 + 4 * segments + 2];
        lists[0] = 0; // no Read list
        lists[1] = 1; // a Write chunk follows
        lists[2] = segments;
        for (int i = 0; i < segments; i++) {
            long offset = sink.baseTaggedOffset() + (long) i * segment;
            lists[3 + 4 * i] = sink.stag();
            lists[4 + 4 * i] = segment;
            lists[5 + 4 * i] = (int) (offset >>> 32);
            lists[6 + 4 * i] = (int) offset;
        }
        return words(lists);
    }
}
