package org.iwarp4j.rpcrdma.internal;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import java.util.OptionalInt;
import org.iwarp4j.oncrpc.RpcDispatcher;
import org.iwarp4j.oncrpc.RpcTransportInfo;
import org.iwarp4j.oncrpc.XdrMessage;
import org.iwarp4j.oncrpc.XdrPiece;
import org.iwarp4j.rpcrdma.RpcRdmaSettings;
import org.iwarp4j.rpcrdma.internal.wire.ChunkLists;
import org.iwarp4j.rpcrdma.internal.wire.RpcRdmaConstants;
import org.iwarp4j.rpcrdma.internal.wire.RpcRdmaHeader;
import org.iwarp4j.rpcrdma.internal.wire.RpcRdmaHeaderEncoder;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The Requester end serving backward-direction Calls from the Responder on the same connection
 * (RFC 8167, used by NFSv4.1 callbacks). Backward messages travel inline only, as RDMA_MSG without
 * chunks: a backward Call arrives in one of the {@link RpcRdmaSettings#backchannelCredits()} extra
 * Receives this end posted, and its Reply must fit the call-direction inline threshold; a Reply
 * that does not is an unrecoverable problem, so the connection is closed (RFC 8166 §4.5.4).
 */
final class BackwardService {

    private static final Logger log = LoggerFactory.getLogger(BackwardService.class);

    private final RpcRdmaSettings settings;
    private volatile RpcDispatcher dispatcher;
    private volatile RdmaEndpoint endpoint;

    BackwardService(RpcRdmaSettings settings) {
        this.settings = settings;
    }

    void attach(RdmaEndpoint e) {
        this.endpoint = e;
    }

    void dispatcher(RpcDispatcher d) {
        this.dispatcher = d;
    }

    void connectionLost() {
        this.endpoint = null;
    }

    /** A backward Call; {@code message} (reader index at the RPC message) is consumed. */
    void call(RpcRdmaHeader header, ByteBuf message) {
        RpcDispatcher d = dispatcher;
        RdmaEndpoint via = endpoint;
        if (d == null || via == null || settings.backchannelCredits() == 0
                || !((RpcRdmaHeader.RdmaMsg) header).chunks().isEmpty()) {
            log.debug("backward Call 0x{} dropped: no backchannel service", Integer.toHexString(header.xid()));
            message.release();
            return;
        }
        XdrMessage call = XdrMessage.of(message);
        d.dispatch(call, RpcTransportInfo.of("rdma-backchannel", null, null)).whenComplete((reply, error) -> {
            if (error != null) {
                log.debug("backward Call 0x{} not answered: {}", Integer.toHexString(header.xid()), error.toString());
                return;
            }
            send(via, header.xid(), reply);
        });
    }

    private void send(RdmaEndpoint via, int xid, XdrMessage reply) {
        try {
            RpcRdmaHeader h = new RpcRdmaHeader.RdmaMsg(xid, RpcRdmaConstants.VERSION, settings.backchannelCredits(),
                    ChunkLists.NONE);
            int length = RpcRdmaHeaderEncoder.encodedLength(h) + reply.readableBytes();
            if (length > via.sendThreshold()) {
                log.warn("backward Reply 0x{} of {} octets does not fit inline; closing the connection",
                        Integer.toHexString(xid), length);
                via.close();
                return;
            }
            ByteBuf out = PooledByteBufAllocator.DEFAULT.directBuffer(length);
            RpcRdmaHeaderEncoder.encode(h, out);
            for (XdrPiece p : reply.pieces()) {
                out.writeBytes(p.data(), p.data().readerIndex(), p.data().readableBytes());
                if (p.ddpEligible()) {
                    out.writeZero(XdrMessage.padding(p.data().readableBytes()));
                }
            }
            via.send(out, OptionalInt.empty());
        } finally {
            reply.release();
        }
    }
}
