package org.iwarp4j.interop.nfs;

import org.iwarp4j.mpa.NegotiationMode;

/**
 * The MPA CRC mode of our end in the bulk transfers to a Linux 6.1 siw peer, and why it is not our
 * default ({@link NegotiationMode#REQUIRE}, CRC on).
 *
 * <p>siw's receive path ({@code siw_get_trailer} in {@code drivers/infiniband/sw/siw/siw_qp_rx.c},
 * since "RDMA/siw: Always consume all skbuf data in sk_data_ready() upcall", 2022) copies each part
 * of an FPDU's pad and CRC that arrives in a separate socket buffer to the start of its trailer
 * buffer again, instead of after the part already copied. When the trailer of an FPDU straddles two
 * socket buffers, siw compares its CRC with a mix of this FPDU's and the previous FPDU's CRC octets,
 * reports "siw: crc error" and terminates the connection (the NFS client then reconnects and
 * retransmits). Behind QEMU's user-mode network our FPDUs follow the MSS of the host loopback
 * socket (up to 64 KiB) and reach the guest cut at 1460 octets, so this happens a few times per
 * 64 MiB read. With CRC off siw never looks at the trailer's octets, which is also how two Linux
 * hosts run by default (siw's {@code mpa_crc_required} is off): {@code ACCEPT} sends C=0 and uses
 * CRC only if the peer asks.
 */
final class SiwTrailerWorkaround {

    /** CRC only if the peer asks, which Linux does not. */
    static final NegotiationMode BULK_CRC = NegotiationMode.ACCEPT;

    private SiwTrailerWorkaround() {
    }
}
