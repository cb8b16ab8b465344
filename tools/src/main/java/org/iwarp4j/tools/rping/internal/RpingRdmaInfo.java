package org.iwarp4j.tools.rping.internal;

import io.netty.buffer.ByteBuf;

/**
 * rping's only Send payload, {@code struct rping_rdma_info}: where a buffer is and how to reach it,
 * 16 octets in network byte order.
 *
 * <pre>
 *  0               8           12          16
 *  | buf (u64)     | rkey (u32) | size (u32) |
 * </pre>
 *
 * The client sends one to advertise its start buffer (the server RDMA Reads it) and one for its
 * sink buffer (the server RDMA Writes into it). The server's "go ahead" Sends carry the same 16
 * octets but never fills them in: Linux rping sends zeros there (rping-siw.pcap).
 *
 * @param buf the buffer's tagged offset (rping sends its virtual address)
 * @param rkey the STag the peer must use
 * @param size octets of ping data
 */
public record RpingRdmaInfo(long buf, int rkey, int size) {

    /** {@code sizeof(struct rping_rdma_info)}. */
    public static final int LENGTH = 16;

    /** The "go ahead" message: rping's server sends its never-formatted {@code send_buf}. */
    public static final RpingRdmaInfo GO_AHEAD = new RpingRdmaInfo(0, 0, 0);

    /** Writes the 16 octets at {@code out}'s writer index; the caller keeps ownership of {@code out}. */
    public void encode(ByteBuf out) {
        out.writeLong(buf).writeInt(rkey).writeInt(size);
    }

    /** Writes the 16 octets at {@code index} of {@code out} without moving its indexes. */
    public void set(ByteBuf out, int index) {
        out.setLong(index, buf).setInt(index + 8, rkey).setInt(index + 12, size);
    }

    /** Reads the 16 octets at {@code index} of {@code in} (not released, indexes unchanged). */
    public static RpingRdmaInfo get(ByteBuf in, int index) {
        return new RpingRdmaInfo(in.getLong(index), in.getInt(index + 8), in.getInt(index + 12));
    }

    /** The size as rping prints it ({@code %d} of a {@code u32}: negative above 2^31 - 1). */
    @Override
    public String toString() {
        return String.format("rkey %x addr %x len %d", rkey, buf, size);
    }
}
