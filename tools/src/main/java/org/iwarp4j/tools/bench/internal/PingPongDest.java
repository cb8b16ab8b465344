package org.iwarp4j.tools.bench.internal;

import java.nio.ByteBuffer;
import java.util.Arrays;

/**
 * perftest's {@code struct pingpong_dest} as {@code rdma_write_keys} sends it over rdma_cm: 56
 * octets, each integer big-endian ({@code HAVE_ENDIAN} builds, as Debian's), with the C struct's
 * 4 octets of alignment padding after {@code rkey}:
 *
 * <pre>
 *  0 lid        4 out_reads   8 qpn   12 psn   16 rkey   20 (padding)
 * 24 vaddr (8)  32 gid (16)  48 srqn  52 gid_index
 * </pre>
 *
 * For iWARP, {@code rkey} is the STag and {@code vaddr} the tagged offset of the peer's buffer
 * (the Send test's client gives its credit buffer here instead).
 */
public record PingPongDest(int lid, int outReads, int qpn, int psn, int rkey, long vaddr, byte[] gid, int srqn,
                           int gidIndex) {

    public static final int LENGTH = 56;
    /** What perftest sends before {@code set_up_connection} filled it in: all zero. */
    public static final PingPongDest ZERO = new PingPongDest(0, 0, 0, 0, 0, 0, new byte[16], 0, 0);

    public PingPongDest {
        if (gid.length != 16) {
            throw new IllegalArgumentException("a GID has 16 octets");
        }
        gid = gid.clone();
    }

    @Override
    public byte[] gid() {
        return gid.clone();
    }

    public byte[] encode() {
        ByteBuffer b = ByteBuffer.allocate(LENGTH);
        b.putInt(lid).putInt(outReads).putInt(qpn).putInt(psn).putInt(rkey).putInt(0).putLong(vaddr).put(gid)
                .putInt(srqn).putInt(gidIndex);
        return b.array();
    }

    /** Decodes as {@code rdma_read_keys}: padding ignored; {@code srqn}/{@code gid_index} read as sent. */
    public static PingPongDest decode(byte[] octets) {
        if (octets.length < LENGTH) {
            throw new IllegalArgumentException("pingpong_dest has " + LENGTH + " octets, got " + octets.length);
        }
        ByteBuffer b = ByteBuffer.wrap(octets);
        int lid = b.getInt();
        int outReads = b.getInt();
        int qpn = b.getInt();
        int psn = b.getInt();
        int rkey = b.getInt();
        b.getInt();
        long vaddr = b.getLong();
        byte[] gid = new byte[16];
        b.get(gid);
        return new PingPongDest(lid, outReads, qpn, psn, rkey, vaddr, gid, b.getInt(), b.getInt());
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof PingPongDest d && lid == d.lid && outReads == d.outReads && qpn == d.qpn && psn == d.psn
                && rkey == d.rkey && vaddr == d.vaddr && Arrays.equals(gid, d.gid) && srqn == d.srqn
                && gidIndex == d.gidIndex;
    }

    @Override
    public int hashCode() {
        return Arrays.hashCode(encode());
    }

    @Override
    public String toString() {
        return String.format("PingPongDest{QPN %06x, PSN %06x, RKey %08x, VAddr %016x, out_reads %d}", qpn, psn, rkey,
                vaddr, outReads);
    }
}
