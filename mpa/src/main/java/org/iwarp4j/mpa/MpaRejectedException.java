package org.iwarp4j.mpa;

/**
 * The connection was rejected with a Reply frame that had R=1 (RFC 5044 §7.1.2 #2, #3). The TCP
 * connection is left open, as the RFC says; the caller closes it.
 */
public final class MpaRejectedException extends MpaException {

    private static final long serialVersionUID = 1L;

    private final boolean byPeer;
    private final transient MpaStartupFrame reply;

    public MpaRejectedException(boolean byPeer, MpaStartupFrame reply, String reason) {
        super(null, (byPeer ? "the peer rejected the connection" : "the connection was rejected locally")
                + (reason == null ? "" : ": " + reason));
        this.byPeer = byPeer;
        this.reply = reply;
    }

    /** {@code true} if the remote Responder rejected; {@code false} if this end (as Responder) did. */
    public boolean byPeer() {
        return byPeer;
    }

    /** The Reply frame with R=1 that was received or sent. */
    public MpaStartupFrame reply() {
        return reply;
    }

    /** The reject Reply's ULP private data. */
    public byte[] ulpPrivateData() {
        return reply.ulpPrivateData();
    }

    /** The RFC 6581 word of the reject Reply (IRD/ORD to pass to the ULP, MPA2-R-017), or {@code null}. */
    public EnhancedConnectionData enhancedData() {
        return reply.enhancedData();
    }
}
