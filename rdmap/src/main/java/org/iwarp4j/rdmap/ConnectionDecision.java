package org.iwarp4j.rdmap;

/** A listener's answer to a {@link ConnectionRequest}; made by its accept and reject methods. */
public final class ConnectionDecision {

    private final QueuePair queuePair;
    private final byte[] privateData;

    ConnectionDecision(QueuePair queuePair, byte[] privateData) {
        this.queuePair = queuePair;
        this.privateData = privateData;
    }

    public boolean isAccept() {
        return queuePair != null;
    }

    QueuePair queuePair() {
        return queuePair;
    }

    byte[] privateData() {
        return privateData;
    }
}
