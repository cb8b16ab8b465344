/**
 * RDMAP (RFC 5040) and the verbs API: {@link org.iwarp4j.rdmap.Rnic}, protection domains, memory
 * regions, queue pairs, completion queues.
 *
 * <p>{@code org.iwarp4j.rdmap.internal.wire} (the RDMAP header codecs) is exported only to the capture decoder
 * ({@code org.iwarp4j.conformance}); {@code org.iwarp4j.rdmap.internal.qp} (the queue pair engine) is not
 * exported.
 */
module org.iwarp4j.rdmap {
    requires transitive org.iwarp4j.ddp;
    requires transitive org.iwarp4j.mpa;
    // Transport.best() asks Epoll whether the native library loaded; the NIO fallback needs nothing more.
    requires io.netty.transport.classes.epoll;
    // Transport.IO_URING, opt-in; IoUring.isAvailable() says whether it can run here.
    requires io.netty.transport.classes.io_uring;
    // Listeners log refused connections (rate-limited) when a connection cap is reached.
    requires org.slf4j;

    exports org.iwarp4j.rdmap;
    // The capture decoder (iwarp decode) reads Terminates, Read Requests and RDMAP control octets with the
    // same codecs the stack uses.
    exports org.iwarp4j.rdmap.internal.wire to org.iwarp4j.conformance;
}
