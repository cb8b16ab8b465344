package org.iwarp4j.rdmap;

import java.net.SocketAddress;
import org.iwarp4j.mpa.EnhancedConnectionData;
import org.iwarp4j.mpa.MpaConnectRequest;

/**
 * A peer's request to connect, as a listener sees it before anything is answered: its private
 * data and RFC 6581 IRD/ORD (MPA2-R-017). Answer with {@link #accept(QueuePair)} or {@link #reject}.
 */
public final class ConnectionRequest {

    private final MpaConnectRequest request;

    ConnectionRequest(MpaConnectRequest request) {
        this.request = request;
    }

    public SocketAddress remoteAddress() {
        return request.remoteAddress();
    }

    /** The Initiator's private data for the ULP (without the RFC 6581 word). */
    public byte[] privateData() {
        return request.ulpPrivateData();
    }

    /** The Initiator's IRD, ORD and connection model, or {@code null} for an MPA revision 1 peer. */
    public EnhancedConnectionData enhancedData() {
        return request.enhancedData();
    }

    /**
     * Accept, binding the connection to {@code queuePair} (state IDLE, receives may be posted). A
     * queue pair runs one connection: one already connected, accepted or closed is not bound, and
     * the peer gets an MPA reject instead (logged as a warning). So is one of another RNIC than the
     * listening one (its connection would run on the listening RNIC's event loops and outlive its
     * own RNIC's close): MPA reject, warning, and the queue pair is left IDLE for its own RNIC.
     */
    public ConnectionDecision accept(QueuePair queuePair) {
        return new ConnectionDecision(queuePair, null);
    }

    /** Accept, answering with {@code privateData}. */
    public ConnectionDecision accept(QueuePair queuePair, byte[] privateData) {
        return new ConnectionDecision(queuePair, privateData.clone());
    }

    /** Reject with an MPA Reply that has R=1 and {@code privateData}. */
    public ConnectionDecision reject(byte[] privateData) {
        return new ConnectionDecision(null, privateData.clone());
    }
}
