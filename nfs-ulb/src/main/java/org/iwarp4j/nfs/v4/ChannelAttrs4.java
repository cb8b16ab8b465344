package org.iwarp4j.nfs.v4;

import org.iwarp4j.oncrpc.XdrDecoder;
import org.iwarp4j.oncrpc.XdrEncoder;
import org.iwarp4j.oncrpc.XdrException;

/**
 * channel_attrs4 (RFC 8881 §18.36): what a client asks for and a server grants for one channel
 * of a session. {@code rdmaIrd} is the optional {@code ca_rdma_ird<1>} (-1 when absent).
 */
public record ChannelAttrs4(int headerPadSize, int maxRequestSize, int maxResponseSize, int maxResponseSizeCached,
                            int maxOperations, int maxRequests, long rdmaIrd) {

    public static ChannelAttrs4 decode(XdrDecoder in) {
        int pad = in.readInt();
        int req = in.readInt();
        int resp = in.readInt();
        int cached = in.readInt();
        int ops = in.readInt();
        int reqs = in.readInt();
        long n = in.readUnsignedInt();
        if (n > 1) {
            throw new XdrException("ca_rdma_ird<1> with " + n + " elements");
        }
        long ird = n == 1 ? in.readUnsignedInt() : -1;
        return new ChannelAttrs4(pad, req, resp, cached, ops, reqs, ird);
    }

    public void encode(XdrEncoder out) {
        out.writeInt(headerPadSize).writeInt(maxRequestSize).writeInt(maxResponseSize)
                .writeInt(maxResponseSizeCached).writeInt(maxOperations).writeInt(maxRequests);
        if (rdmaIrd < 0) {
            out.writeUnsignedInt(0);
        } else {
            out.writeUnsignedInt(1).writeUnsignedInt(rdmaIrd);
        }
    }
}
