package org.iwarp4j.mpa;

import io.netty.channel.Channel;
import org.iwarp4j.mpa.internal.ConnectionMss;

/**
 * The outcome of a successful MPA startup: what both FPDU directions use in Full Operation and
 * what the ULP must know (RFC 5044 §7.1.1, RFC 6581 §9). Immutable.
 */
public final class NegotiatedParameters {

    private final MpaRole role;
    private final int revision;
    private final boolean crc;
    private final boolean markersToPeer;
    private final boolean markersFromPeer;
    private final int sendMulpdu;
    private final int maxReceiveUlpdu;
    private final byte[] peerPrivateData;
    private final EnhancedConnectionData peerEnhancedData;
    private final int ird;
    private final int ord;
    private final boolean peerToPeer;
    private final RtrType rtr;
    private final boolean mulpduFromConnection;

    NegotiatedParameters(MpaRole role, int revision, boolean crc, boolean markersToPeer, boolean markersFromPeer,
                         int sendMulpdu, int maxReceiveUlpdu, byte[] peerPrivateData,
                         EnhancedConnectionData peerEnhancedData, int ird, int ord, boolean peerToPeer,
                         RtrType rtr, boolean mulpduFromConnection) {
        this.mulpduFromConnection = mulpduFromConnection;
        this.role = role;
        this.revision = revision;
        this.crc = crc;
        this.markersToPeer = markersToPeer;
        this.markersFromPeer = markersFromPeer;
        this.sendMulpdu = sendMulpdu;
        this.maxReceiveUlpdu = maxReceiveUlpdu;
        this.peerPrivateData = peerPrivateData;
        this.peerEnhancedData = peerEnhancedData;
        this.ird = ird;
        this.ord = ord;
        this.peerToPeer = peerToPeer;
        this.rtr = rtr;
    }

    public MpaRole role() {
        return role;
    }

    /** The MPA revision in use (MPA-R-009): 2 only when both frames were enhanced. */
    public int revision() {
        return revision;
    }

    /**
     * CRC generated and checked in both directions for the whole connection (either frame had
     * C=1: MPA-R-026, MPA-R-047); {@code false} only when neither had (MPA-R-027).
     */
    public boolean crc() {
        return crc;
    }

    /** This end puts markers in the FPDUs it sends (the peer's frame had M=1, MPA-R-046). */
    public boolean markersToPeer() {
        return markersToPeer;
    }

    /** The peer puts markers in the FPDUs it sends (this end's frame had M=1, MPA-R-046). */
    public boolean markersFromPeer() {
        return markersFromPeer;
    }

    /**
     * MULPDU for what this end sends (RFC 5044 §3: DDP segments to this size, between 128 and
     * 64768, MPA-R-004), as it was when Full Operation began; see {@link #currentSendMulpdu(Channel)}.
     */
    public int sendMulpdu() {
        return sendMulpdu;
    }

    /**
     * Whether MULPDU follows the connection's current MSS ({@link MpaSettings#emssFromConnection()}
     * and a transport that reports it), so that it can change during the connection.
     */
    public boolean mulpduFromConnection() {
        return mulpduFromConnection;
    }

    /**
     * The MULPDU for the next message sent on {@code channel} (RFC 5041 §5.2, DDP-R-001: the LLP's
     * current MULPDU): {@link #sendMulpdu()}, or, when it {@linkplain #mulpduFromConnection() follows
     * the connection}, recomputed from the socket's MSS now. Linux bounds the MSS by half the
     * peer's window early in a connection (32 KiB over loopback), so it grows as the window opens.
     * A system call each time: ask every few messages, not for each one.
     */
    public int currentSendMulpdu(Channel channel) {
        if (!mulpduFromConnection) {
            return sendMulpdu;
        }
        int mss = ConnectionMss.of(channel);
        return mss > 0 ? Mulpdu.of(mss, markersToPeer) : sendMulpdu;
    }

    public int maxReceiveUlpdu() {
        return maxReceiveUlpdu;
    }

    /** The peer's private data for the ULP (without the RFC 6581 word); a copy. */
    public byte[] peerPrivateData() {
        return peerPrivateData.clone();
    }

    /** The peer's RFC 6581 word as received (MPA2-R-017), or {@code null} at revision 1. */
    public EnhancedConnectionData peerEnhancedData() {
        return peerEnhancedData;
    }

    /** Inbound RDMA Read queue depth this end must provide: at most this many Read Requests arrive. */
    public int ird() {
        return ird;
    }

    /** Outbound RDMA Read limit: this end must not have more Read Requests outstanding. */
    public int ord() {
        return ord;
    }

    /** The peer-to-peer model was agreed: the Initiator's first FPDU is an RTR (RFC 6581 §9.2). */
    public boolean peerToPeer() {
        return peerToPeer;
    }

    /**
     * Initiator in peer-to-peer mode: the RTR message its ULP must send before anything else
     * (MPA2-R-009); otherwise {@code null}.
     */
    public RtrType rtr() {
        return rtr;
    }

    @Override
    public String toString() {
        return "NegotiatedParameters{" + role + ", rev " + revision + ", CRC " + (crc ? "on" : "off")
                + ", markers to peer " + (markersToPeer ? "on" : "off")
                + ", markers from peer " + (markersFromPeer ? "on" : "off")
                + ", MULPDU " + sendMulpdu + ", IRD " + ird + ", ORD " + ord
                + (peerToPeer ? ", peer-to-peer RTR " + rtr : "")
                + ", peer private data " + peerPrivateData.length + " octets}";
    }
}
