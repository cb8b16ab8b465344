/**
 * MPA (RFC 5044) with the RFC 6581 enhanced connection setup: the startup handshake, FPDU framing,
 * markers and CRC32c, as Netty channel handlers.
 *
 * <p>{@code org.iwarp4j.mpa.internal} is exported only to the conformance tools (whose probe writes
 * startup frames with the stack's own codec): its framing helpers are free to change.
 * {@code org.iwarp4j.mpa.internal.text} is how the modules that print a peer's text show it
 * ({@code PeerText}); it is no part of the MPA API either.
 */
module org.iwarp4j.mpa {
    // Netty and Micrometer types appear in the API (ByteBuf, Channel, handlers, MeterRegistry).
    requires transitive io.netty.buffer;
    requires transitive io.netty.common;
    requires transitive io.netty.transport;
    requires transitive io.netty.codec;
    requires transitive micrometer.core;
    // Reads a connected epoll socket's MSS (classes only; the native library is optional), and
    // TCP_MAXSEG through Netty's generic socket option on the other native transports (io_uring).
    requires io.netty.transport.classes.epoll;
    requires io.netty.transport.unix.common;

    exports org.iwarp4j.mpa;
    exports org.iwarp4j.mpa.internal to org.iwarp4j.conformance;
    exports org.iwarp4j.mpa.internal.text to org.iwarp4j.conformance, org.iwarp4j.tools;
}
