package org.iwarp4j.oncrpc;

import io.netty.buffer.ByteBufAllocator;

import java.net.SocketAddress;

/**
 * The transport a call arrived on, as a server transport tells the {@link RpcDispatcher}.
 *
 * @param name a short name such as {@code "tcp"} or {@code "rdma"}
 * @param localAddress this end's address, or null if unknown
 * @param remoteAddress the caller's address, or null if unknown
 * @param alloc allocator procedures should encode results with
 */
public record RpcTransportInfo(String name, SocketAddress localAddress, SocketAddress remoteAddress,
                               ByteBufAllocator alloc) {

    /** With {@link ByteBufAllocator#DEFAULT}. */
    public static RpcTransportInfo of(String name, SocketAddress localAddress, SocketAddress remoteAddress) {
        return new RpcTransportInfo(name, localAddress, remoteAddress, ByteBufAllocator.DEFAULT);
    }
}
