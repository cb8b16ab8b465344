package org.iwarp4j.oncrpc;

import io.netty.buffer.ByteBufAllocator;

import java.util.concurrent.CompletableFuture;

/**
 * The client side of a transport: carries whole call messages to a server and returns the
 * reply with the same xid. Implemented by {@link RpcTcpClientTransport} (record marking, RFC
 * 5531 §11) and by the RPC-over-RDMA requester ({@code org.iwarp4j.rpcrdma}, RFC 8166).
 * {@link RpcClient} owns everything above: xid allocation, call and reply headers,
 * credentials, error mapping and timeouts.
 *
 * <p>Contract for implementations (all methods are thread-safe):
 * <ul>
 *   <li>{@link #call} takes over the caller's reference to {@code call} and releases it once
 *       sent or failed. The message starts at the xid, which equals {@code info.xid()}.</li>
 *   <li>The returned future completes with the whole reply message (from the xid on; a
 *       transport that received reduced items builds it with {@link XdrMessage#ofReduced});
 *       the receiver of the future releases it.</li>
 *   <li>Replies are matched to calls by xid; several calls may be outstanding. A reply whose
 *       xid matches no outstanding call is dropped (and counted).</li>
 *   <li>If the caller cancels the future (e.g. on timeout), the transport forgets the xid and a
 *       late reply is dropped like an unknown one; a reply that loses a race with cancellation
 *       is released by the transport.</li>
 *   <li>If the connection is lost or the call cannot be sent, the future completes with an
 *       {@link RpcTransportException}, unless the transport connects again and retransmits the
 *       call with the same xid (both provided transports do by default, as Linux's client does:
 *       {@link RpcTcpClientTransport.Builder#reconnect}, RPC-over-RDMA's {@code reconnect}); after
 *       {@link #close()} every outstanding and further call fails that way.</li>
 * </ul>
 */
public interface RpcClientTransport extends AutoCloseable {

    /**
     * Sends one call and completes with its reply.
     *
     * @param info the xid and procedure of {@code call}
     * @param call the whole call message; ownership passes to the transport
     */
    CompletableFuture<XdrMessage> call(RpcCallInfo info, XdrMessage call);

    /** A short name for logs and {@link RpcCallContext}, e.g. {@code "tcp"} or {@code "rdma"}. */
    String name();

    /** The allocator the client should encode calls with (e.g. registered memory for RDMA). */
    default ByteBufAllocator alloc() {
        return ByteBufAllocator.DEFAULT;
    }

    /**
     * What the transport can say about itself now, for the message of a call that timed out
     * ({@link RpcTimeoutException}): its connection, the calls it is waiting on, flow control.
     * Empty if it has nothing to say.
     */
    default String state() {
        return "";
    }

    /** Closes the connection; outstanding calls fail with {@link RpcTransportException}. */
    @Override
    void close();
}
