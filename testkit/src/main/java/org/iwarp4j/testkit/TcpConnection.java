package org.iwarp4j.testkit;

/**
 * One TCP connection in a capture, identified by its two endpoints, with the bytes each side sent.
 *
 * <p>The client is the side that sent the SYN. When the handshake is not in the capture, the side
 * that answered with SYN-ACK is the server, and failing that the first sender is taken as client.
 */
public record TcpConnection(TcpDirection clientToServer, TcpDirection serverToClient, boolean handshakeCaptured) {

    /** The side that opened the connection. */
    public TcpEndpoint client() {
        return clientToServer.source();
    }

    /** The side that accepted the connection. */
    public TcpEndpoint server() {
        return clientToServer.destination();
    }

    public int clientPort() {
        return client().port();
    }

    public int serverPort() {
        return server().port();
    }

    @Override
    public String toString() {
        return client() + " -> " + server();
    }
}
