package org.iwarp4j.mpa;

import static org.iwarp4j.mpa.MpaConstants.FLAG_PEER_TO_PEER;
import static org.iwarp4j.mpa.MpaConstants.FLAG_RTR_READ;
import static org.iwarp4j.mpa.MpaConstants.FLAG_RTR_SEND;
import static org.iwarp4j.mpa.MpaConstants.FLAG_RTR_WRITE;
import static org.iwarp4j.mpa.MpaConstants.MAX_IRD_ORD;

import java.util.Collections;
import java.util.EnumSet;
import java.util.Objects;
import java.util.Set;

/**
 * The 4-octet word that begins enhanced private data (RFC 6581 §9), immutable:
 *
 * <pre>
 *  |A|B|           IRD             |C|D|           ORD             |
 * </pre>
 *
 * A = peer-to-peer, B/C/D = RTR options Send/Write/Read, IRD/ORD 14 bits each. Sent in network
 * byte order.
 */
public final class EnhancedConnectionData {

    private final boolean peerToPeer;
    private final Set<RtrType> rtrTypes;
    private final int ird;
    private final int ord;

    /**
     * @throws IllegalArgumentException if IRD or ORD does not fit in 14 bits
     */
    public EnhancedConnectionData(boolean peerToPeer, Set<RtrType> rtrTypes, int ird, int ord) {
        if (ird < 0 || ird > MAX_IRD_ORD || ord < 0 || ord > MAX_IRD_ORD) {
            throw new IllegalArgumentException("IRD and ORD are 14-bit values: ird=" + ird + " ord=" + ord);
        }
        this.peerToPeer = peerToPeer;
        this.rtrTypes = rtrTypes.isEmpty()
                ? Collections.emptySet() : Collections.unmodifiableSet(EnumSet.copyOf(rtrTypes));
        this.ird = ird;
        this.ord = ord;
    }

    /** Decodes the word as it stands on the wire; the flag bits are masked off IRD and ORD (MPA2-R-015). */
    public static EnhancedConnectionData decode(int word) {
        int irdHalf = word >>> 16;
        int ordHalf = word & 0xFFFF;
        EnumSet<RtrType> rtr = EnumSet.noneOf(RtrType.class);
        if ((irdHalf & FLAG_RTR_SEND) != 0) {
            rtr.add(RtrType.SEND);
        }
        if ((ordHalf & FLAG_RTR_WRITE) != 0) {
            rtr.add(RtrType.WRITE);
        }
        if ((ordHalf & FLAG_RTR_READ) != 0) {
            rtr.add(RtrType.READ);
        }
        return new EnhancedConnectionData((irdHalf & FLAG_PEER_TO_PEER) != 0, rtr,
                irdHalf & MAX_IRD_ORD, ordHalf & MAX_IRD_ORD);
    }

    /** The word in host order; write it with {@code ByteBuf.writeInt} (big-endian). */
    public int encode() {
        int irdHalf = ird;
        int ordHalf = ord;
        if (peerToPeer) {
            irdHalf |= FLAG_PEER_TO_PEER;
        }
        if (rtrTypes.contains(RtrType.SEND)) {
            irdHalf |= FLAG_RTR_SEND;
        }
        if (rtrTypes.contains(RtrType.WRITE)) {
            ordHalf |= FLAG_RTR_WRITE;
        }
        if (rtrTypes.contains(RtrType.READ)) {
            ordHalf |= FLAG_RTR_READ;
        }
        return irdHalf << 16 | ordHalf;
    }

    /** A: the connection uses the peer-to-peer model, an RTR will follow the Reply. */
    public boolean peerToPeer() {
        return peerToPeer;
    }

    /** B/C/D: the RTR options the sender supports (meaningful only when {@link #peerToPeer()}). */
    public Set<RtrType> rtrTypes() {
        return rtrTypes;
    }

    /** The sender's inbound RDMA Read queue depth; {@code 0x3FFF} = no automatic negotiation. */
    public int ird() {
        return ird;
    }

    /** The sender's outbound RDMA Read queue depth; {@code 0x3FFF} = no automatic negotiation. */
    public int ord() {
        return ord;
    }

    @Override
    public boolean equals(Object o) {
        if (!(o instanceof EnhancedConnectionData)) {
            return false;
        }
        EnhancedConnectionData that = (EnhancedConnectionData) o;
        return peerToPeer == that.peerToPeer && ird == that.ird && ord == that.ord
                && rtrTypes.equals(that.rtrTypes);
    }

    @Override
    public int hashCode() {
        return Objects.hash(peerToPeer, rtrTypes, ird, ord);
    }

    @Override
    public String toString() {
        return "EnhancedConnectionData{" + (peerToPeer ? "peer-to-peer " + rtrTypes : "client-server")
                + ", ird=" + ird + ", ord=" + ord + '}';
    }
}
