/**
 * ONC RPC (RFC 5531) over XDR (RFC 4506) on Netty ByteBufs, with a TCP record-marking transport.
 *
 * <p>{@code org.iwarp4j.oncrpc.internal} is exported only to the capture decoder ({@code
 * org.iwarp4j.conformance}), to the NFS servers ({@code org.iwarp4j.nfs}, for {@code LogRateLimit}),
 * to RPC-over-RDMA ({@code org.iwarp4j.rpcrdma}, for {@code ServerCallBudget}) and to the command's
 * programs ({@code org.iwarp4j.tools}, for {@code LogRateLimit}).
 */
module org.iwarp4j.oncrpc {
    requires transitive io.netty.buffer;
    requires transitive io.netty.common;
    requires transitive io.netty.transport;
    requires transitive io.netty.codec;
    requires transitive micrometer.core;
    requires org.slf4j;
    // IdleStateHandler: RpcTcpServer closes idle connections and records that take too long.
    requires io.netty.handler;

    exports org.iwarp4j.oncrpc;
    exports org.iwarp4j.oncrpc.sample;
    // The capture decoder (iwarp decode) reads call and reply headers with these codecs; the NFS
    // servers limit the warnings a client can provoke as the RPC server does (LogRateLimit); the
    // RPC-over-RDMA server bounds its calls in service as the RPC/TCP server does (ServerCallBudget);
    // the command's servers (rping, bench rpc) limit the lines a peer can make them print (LogRateLimit).
    exports org.iwarp4j.oncrpc.internal to org.iwarp4j.conformance, org.iwarp4j.nfs, org.iwarp4j.rpcrdma,
            org.iwarp4j.tools;
}
