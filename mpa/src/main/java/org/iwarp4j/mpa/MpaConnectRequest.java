package org.iwarp4j.mpa;

import java.net.SocketAddress;

/**
 * What a Responder's ULP sees of an Initiator's valid Request frame before it decides to accept
 * or reject (RFC 5044 §7.1.2 #2; RFC 6581 §9.1 asks that the peer's IRD and ORD reach the ULP).
 */
public final class MpaConnectRequest {

    private final MpaStartupFrame request;
    private final SocketAddress remoteAddress;

    public MpaConnectRequest(MpaStartupFrame request, SocketAddress remoteAddress) {
        this.request = request;
        this.remoteAddress = remoteAddress;
    }

    /** The Request frame exactly as received. */
    public MpaStartupFrame frame() {
        return request;
    }

    /** The Initiator's private data for the ULP (without the RFC 6581 word). */
    public byte[] ulpPrivateData() {
        return request.ulpPrivateData();
    }

    /** The Initiator's RFC 6581 word (IRD, ORD, peer-to-peer, RTR options), or {@code null}. */
    public EnhancedConnectionData enhancedData() {
        return request.enhancedData();
    }

    public SocketAddress remoteAddress() {
        return remoteAddress;
    }

    @Override
    public String toString() {
        return "MpaConnectRequest{" + request + " from " + remoteAddress + '}';
    }
}
