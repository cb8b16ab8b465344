package org.iwarp4j.rpcrdma;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.stream.Collectors;
import org.iwarp4j.rpcrdma.internal.RdmaEndpoint;
import org.iwarp4j.rpcrdma.internal.RdmaEndpoint.Tapped;
import org.iwarp4j.rpcrdma.internal.wire.HeaderDecodeResult;
import org.iwarp4j.rpcrdma.internal.wire.RpcRdmaHeader;
import org.iwarp4j.rpcrdma.internal.wire.RpcRdmaHeaderDecoder;

/**
 * What one end put on the wire and took off it: every RDMA Send's octets (the RPC-over-RDMA
 * message exactly as the peer receives it), every Receive, every RDMA Write and Read posted.
 */
final class WireLog {

    /** A Send or Receive decoded: its header, the octets after it, and the Send with Invalidate STag. */
    record Message(RpcRdmaHeader header, byte[] octets, int payloadLength, java.util.OptionalInt stag) {
    }

    final List<Tapped> events = new CopyOnWriteArrayList<>();

    void attach(RdmaEndpoint endpoint) {
        endpoint.tap(events::add);
    }

    List<Message> sent() {
        return messages(Tapped.Kind.SEND);
    }

    List<Message> received() {
        return messages(Tapped.Kind.RECEIVE);
    }

    List<Tapped> writes() {
        return events.stream().filter(t -> t.kind() == Tapped.Kind.RDMA_WRITE).collect(Collectors.toList());
    }

    List<Tapped> reads() {
        return events.stream().filter(t -> t.kind() == Tapped.Kind.RDMA_READ).collect(Collectors.toList());
    }

    long written() {
        return writes().stream().mapToLong(Tapped::length).sum();
    }

    private List<Message> messages(Tapped.Kind kind) {
        RpcRdmaHeaderDecoder decoder = new RpcRdmaHeaderDecoder();
        return events.stream().filter(t -> t.kind() == kind).map(t -> {
            ByteBuf b = Unpooled.wrappedBuffer(t.octets());
            HeaderDecodeResult r = decoder.decode(b);
            RpcRdmaHeader h = r instanceof HeaderDecodeResult.Decoded d ? d.header() : null;
            return new Message(h, t.octets(), h == null ? 0 : b.readableBytes(), t.stag());
        }).collect(Collectors.toList());
    }
}
