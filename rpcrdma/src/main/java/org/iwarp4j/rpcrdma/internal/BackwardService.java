package org.iwarp4j.rpcrdma.internal;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import java.util.OptionalInt;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;
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
 * that does not, or cannot be sent, is an unrecoverable problem, so the connection is closed (RFC
 * 8166 §4.5.4).
 *
 * <p>Backward Calls count against the backward credits this end grants (RFC 8167 §4.1: they work
 * as the forward ones, RFC 8166 §3.3.1) from their arrival until their Reply's Send completed. A
 * Responder with more than twice the credits outstanding as this end sees them (a Reply's Send may
 * complete after the Responder saw it and sent the next Call) breaks the protocol: the connection
 * is aborted. Otherwise each such Call would be dispatched and answered with a Send of its own,
 * which a Responder that reads nothing keeps waiting, each beyond the Send slots holding an STag of
 * the RNIC's one table.
 */
final class BackwardService {

    private static final Logger log = LoggerFactory.getLogger(BackwardService.class);
    /** Backward Calls counted per credit before the connection is ended (see the class description). */
    private static final int CREDIT_SLACK = 2;

    private final RpcRdmaSettings settings;
    private volatile RpcDispatcher dispatcher;
    private volatile Connection connection;

    /** One connection and its backward Calls taken up whose Reply's Send has not completed. */
    private record Connection(RdmaEndpoint endpoint, AtomicInteger unanswered) {
    }

    BackwardService(RpcRdmaSettings settings) {
        this.settings = settings;
    }

    void attach(RdmaEndpoint e) {
        this.connection = new Connection(e, new AtomicInteger());
    }

    void dispatcher(RpcDispatcher d) {
        this.dispatcher = d;
    }

    void connectionLost() {
        this.connection = null;
    }

    /** A backward Call; {@code message} (reader index at the RPC message) is consumed. */
    void call(RpcRdmaHeader header, ByteBuf message) {
        RpcDispatcher d = dispatcher;
        Connection c = connection;
        if (d == null || c == null || settings.backchannelCredits() == 0
                || !((RpcRdmaHeader.RdmaMsg) header).chunks().isEmpty()) {
            log.debug("backward Call 0x{} dropped: no backchannel service", Integer.toHexString(header.xid()));
            message.release();
            return;
        }
        int inUse = c.unanswered().incrementAndGet();
        if (inUse > CREDIT_SLACK * settings.backchannelCredits()) {
            c.unanswered().decrementAndGet();
            message.release();
            log.debug("the Responder has {} backward Calls unanswered, over the {} credits granted; aborting {}",
                    inUse, settings.backchannelCredits(), c.endpoint().queuePair());
            c.endpoint().abort();
            return;
        }
        XdrMessage call = XdrMessage.of(message);
        d.dispatch(call, RpcTransportInfo.of("rdma-backchannel", null, null)).whenComplete((reply, error) -> {
            if (error != null) {
                c.unanswered().decrementAndGet();
                log.debug("backward Call 0x{} not answered: {}", Integer.toHexString(header.xid()), error.toString());
                return;
            }
            send(c, header.xid(), reply);
        });
    }

    /** Sends the Reply to a backward Call, which stops counting once the Send completed or failed. */
    private void send(Connection c, int xid, XdrMessage reply) {
        RdmaEndpoint via = c.endpoint();
        CompletableFuture<Void> sent = null;
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
            sent = via.send(out, OptionalInt.empty());
            sent.whenComplete((v, e) -> {
                c.unanswered().decrementAndGet();
                if (e != null && via.isOpen()) {
                    log.debug("backward Reply 0x{} not sent: {}; aborting the connection", Integer.toHexString(xid),
                            e.toString());
                    via.abort(); // RFC 8166 §4.5.4; a peer that reads nothing would keep a graceful close waiting
                }
            });
        } finally {
            reply.release();
            if (sent == null) {
                c.unanswered().decrementAndGet();
            }
        }
    }
}
