package org.iwarp4j.mpa;

import static org.iwarp4j.mpa.MpaConstants.ENHANCED_DATA_LENGTH;
import static org.iwarp4j.mpa.MpaConstants.MAX_PRIVATE_DATA;
import static org.iwarp4j.mpa.MpaConstants.REVISION_1;
import static org.iwarp4j.mpa.MpaConstants.REVISION_2;
import static org.iwarp4j.mpa.MpaConstants.STARTUP_FRAME_HEADER_LENGTH;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelOutboundHandler;
import io.netty.channel.ChannelPromise;
import io.netty.channel.PendingWriteQueue;
import io.netty.handler.codec.ByteToMessageDecoder;
import io.netty.util.ReferenceCountUtil;
import io.netty.util.concurrent.ScheduledFuture;
import java.net.SocketAddress;
import java.nio.channels.ClosedChannelException;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;
import org.iwarp4j.mpa.internal.IrdOrdNegotiation;
import org.iwarp4j.mpa.internal.ConnectionMss;
import org.iwarp4j.mpa.internal.MpaMeters;
import org.iwarp4j.mpa.internal.StartupFrameCodec;

/**
 * MPA connection setup (RFC 5044 §7.1, RFC 6581): sends or awaits the Request frame, answers or
 * awaits the Reply, and on success replaces itself with {@link MpaFrameDecoder} (after it, named
 * {@value #FRAME_DECODER_NAME}) and {@link MpaFrameEncoder} (before it, {@value
 * #FRAME_ENCODER_NAME}) configured with the {@link NegotiatedParameters}, the way codec-haproxy's
 * decoder removes itself. Octets that arrived behind the last startup frame go on to the decoder:
 * both directions switch to FPDUs at once, at the octet after the frame (MPA-R-041).
 *
 * <p>Outcome: {@link #startup()} completes and an {@link MpaStartupEvent} is fired before any
 * ULPDU. Writes made before then are held and go out as FPDUs on success, or fail.
 *
 * <ul>
 *   <li>An invalid frame (wrong key, revision other than 1 or 2, PD_Length over 512 or over {@link
 *       MpaSettings#maxPeerPrivateData()}, enhanced with PD_Length below 4, truncated by the
 *       connection's end, octets arriving when none may) closes the connection at once and fails
 *       with {@link MpaError#INVALID_STARTUP_FRAME} (RFC 5044 §7.1.2, §8: MPA-R-044, MPA-R-045,
 *       MPA-R-050, MPA-R-051, MPA-R-055, MPA-R-058, MPA-R-062, MPA-R-066, MPA-R-072; MPA2-R-002).</li>
 *   <li>A reject (R=1) fails with {@link MpaRejectedException} and leaves TCP open (§7.1.2 #2, #3,
 *       MPA-R-059).</li>
 *   <li>No complete exchange within {@link MpaSettings#startupTimeout()}: closed, {@link
 *       MpaStartupTimeoutException} (§7.1.2 #8, #10; two Responders waiting for each other,
 *       MPA-R-065).</li>
 *   <li>RFC 6581 setup errors found by the Initiator (insufficient IRD, no usable RTR, and a
 *       local error without a code of its own: refusing an enhanced Reply's M or C) enter Full
 *       Operation so that the ULP can send the Terminate the RFC names ({@link
 *       MpaException#terminateRequired()}: codes 6, 7 and 5, MPA2-R-006, MPA2-R-010, MPA2-R-021);
 *       the connection is closed when the startup timeout runs out if the ULP has not closed it
 *       by then.</li>
 * </ul>
 *
 * <p>An enhanced (revision 2) Initiator falls back to RFC 5044 when the Responder answers with a
 * revision 1 Reply: no IRD/ORD word, no RTR, IRD/ORD left to the ULP (RFC 6581 §10).
 */
public final class MpaStartupHandler extends ByteToMessageDecoder implements ChannelOutboundHandler {

    public static final String FRAME_DECODER_NAME = "mpa-frame-decoder";
    public static final String FRAME_ENCODER_NAME = "mpa-frame-encoder";

    private enum State { WAITING_FOR_ACTIVE, AWAITING_FRAME, AWAITING_DECISION, DONE }

    private final MpaRole role;
    private final MpaSettings settings;
    private final ConnectRequestHandler requestHandler;
    private final CompletableFuture<NegotiatedParameters> startup = new CompletableFuture<>();
    private ChannelHandlerContext ctx;
    private PendingWriteQueue pendingWrites;
    private State state = State.WAITING_FOR_ACTIVE;
    private ScheduledFuture<?> timeout;
    private MpaStartupFrame sentRequest;
    private MpaException failure;
    /** Encoder and decoder are in place: writes go straight to the encoder (the ULP may write on the event). */
    private boolean fullOperation;

    private MpaStartupHandler(MpaRole role, MpaSettings settings, ConnectRequestHandler requestHandler) {
        this.role = role;
        this.settings = Objects.requireNonNull(settings);
        this.requestHandler = requestHandler;
    }

    /** The TCP client's side: sends the Request frame when the channel becomes active. */
    public static MpaStartupHandler initiator(MpaSettings settings) {
        return new MpaStartupHandler(MpaRole.INITIATOR, settings, null);
    }

    /** The TCP server's side: {@code requestHandler} decides on each valid Request. */
    public static MpaStartupHandler responder(MpaSettings settings, ConnectRequestHandler requestHandler) {
        return new MpaStartupHandler(MpaRole.RESPONDER, settings, Objects.requireNonNull(requestHandler));
    }

    /**
     * Completes with the negotiated parameters, or exceptionally with an {@link MpaException}.
     * Completed on the channel's event loop; dependent actions run there unless made async.
     */
    public CompletableFuture<NegotiatedParameters> startup() {
        return startup;
    }

    public MpaRole role() {
        return role;
    }

    @Override
    public void handlerAdded(ChannelHandlerContext ctx) {
        this.ctx = ctx;
        this.pendingWrites = new PendingWriteQueue(ctx);
        if (ctx.channel().isActive()) {
            begin();
        }
    }

    @Override
    public void channelActive(ChannelHandlerContext ctx) throws Exception {
        begin();
        super.channelActive(ctx);
    }

    private void begin() {
        if (state != State.WAITING_FOR_ACTIVE) {
            return;
        }
        state = State.AWAITING_FRAME;
        timeout = ctx.executor().schedule(this::timedOut, settings.startupTimeout().toNanos(), TimeUnit.NANOSECONDS);
        if (role == MpaRole.INITIATOR) {
            // The Initiator speaks first, with a well-formed Request (RFC 5044 §7.1.2 #1, MPA-R-053).
            sentRequest = buildRequest();
            ctx.writeAndFlush(StartupFrameCodec.encode(ctx.alloc(), sentRequest))
                    .addListener(writeFailureCloses());
        }
    }

    /**
     * Revision 1 is the plain RFC 5044 frame; revision 2 asks for the enhanced features (IRD/ORD
     * negotiation at least): revision 2, flag S and the IRD/ORD word first in the private data,
     * counted in PD_Length (MPA2-R-001, MPA2-R-022). Options B, C, D only with A (MPA2-R-019).
     */
    private MpaStartupFrame buildRequest() {
        boolean enhanced = settings.revision() == REVISION_2;
        EnhancedConnectionData word = enhanced
                ? new EnhancedConnectionData(settings.peerToPeer(),
                        settings.peerToPeer() ? settings.rtrTypes() : java.util.Set.of(),
                        settings.ird(), settings.ord())
                : null;
        return MpaStartupFrame.request(settings.markers() == NegotiationMode.REQUIRE,
                settings.crc() == NegotiationMode.REQUIRE, settings.revision(), word, settings.privateData());
    }

    private ChannelFutureListener writeFailureCloses() {
        return f -> {
            if (!f.isSuccess()) {
                MpaException e = new MpaException(MpaError.CONNECTION_LOST, "could not send the startup frame");
                e.initCause(f.cause());
                fail(e, true);
            }
        };
    }

    @Override
    protected void decode(ChannelHandlerContext ctx, ByteBuf in, List<Object> out) {
        switch (state) {
            case AWAITING_FRAME:
                decodeFrame(in);
                break;
            case AWAITING_DECISION:
                // The Initiator may send nothing until it has our Reply (RFC 5044 §7.1.2 #3,
                // MPA-R-080); PD_Length said where its Request ended (MPA-R-051).
                in.skipBytes(in.readableBytes());
                fail(new MpaException(MpaError.INVALID_STARTUP_FRAME,
                        "octets arrived after the Request frame before the Reply was sent"), true);
                break;
            default:
                in.skipBytes(in.readableBytes());
                break;
        }
    }

    private void decodeFrame(ByteBuf in) {
        boolean expectRequest = role == MpaRole.RESPONDER;
        // The key first (MPA-R-044, MPA-R-045, MPA-R-062); a Request key where a Reply belongs is
        // how two Initiators find each other out (MPA-R-065).
        int mismatch = StartupFrameCodec.keyMismatch(in, expectRequest);
        if (mismatch >= 0) {
            String what = StartupFrameCodec.isOppositeKey(in, expectRequest)
                    ? (expectRequest ? "a Reply key where a Request was expected (Responder/Responder?)"
                                     : "a Request key where a Reply was expected (Initiator/Initiator)")
                    : "a bad key (octet " + mismatch + ")";
            invalid(in, "the startup frame has " + what);
            return;
        }
        if (in.readableBytes() < STARTUP_FRAME_HEADER_LENGTH) {
            return;
        }
        int base = in.readerIndex();
        int flags = in.getUnsignedByte(base + 16);
        int revision = in.getUnsignedByte(base + 17);
        int pdLength = in.getUnsignedShort(base + 18);
        if (revision != REVISION_1 && revision != REVISION_2) {
            // MPA-R-050: a revision this end cannot work with closes; the one in use goes to the
            // ULP in NegotiatedParameters.revision(). Rev 0 (RDMAC MPA, other DDP and RDMAP
            // versions) is one: versions never mix on a connection (MPA-R-079).
            invalid(in, "unsupported MPA revision " + revision);
            return;
        }
        // PD_Length: at most 512 (MPA-R-051), at most what this end takes in (MPA-R-066); the
        // private data is read only once all PD_Length octets are here, never more.
        if (pdLength > MAX_PRIVATE_DATA) {
            invalid(in, "PD_Length " + pdLength + " is over 512");
            return;
        }
        if (pdLength > settings.maxPeerPrivateData()) {
            invalid(in, "PD_Length " + pdLength + " is over this end's limit of " + settings.maxPeerPrivateData());
            return;
        }
        boolean enhanced = (flags & MpaConstants.FLAG_ENHANCED) != 0 && revision >= REVISION_2;
        if (enhanced && pdLength < ENHANCED_DATA_LENGTH) { // MPA2-R-002
            invalid(in, "enhanced frame with PD_Length " + pdLength + ", too short for the IRD/ORD word");
            return;
        }
        if (in.readableBytes() < STARTUP_FRAME_HEADER_LENGTH + pdLength) {
            return;
        }
        byte[] privateData = new byte[pdLength];
        in.skipBytes(STARTUP_FRAME_HEADER_LENGTH);
        in.readBytes(privateData);
        MpaStartupFrame frame = MpaStartupFrame.fromWire(expectRequest, flags, revision, privateData);
        if (role == MpaRole.RESPONDER) {
            onRequest(frame, in);
        } else {
            onReply(frame, in);
        }
    }

    /** A badly formed frame: close the connection at once, report error 4 (MPA-R-055, MPA-R-058, MPA-R-072). */
    private void invalid(ByteBuf in, String message) {
        in.skipBytes(in.readableBytes());
        fail(new MpaException(MpaError.INVALID_STARTUP_FRAME, message), true);
    }

    // ---------------------------------------------------------------- Responder

    /** A whole, valid Request: only now may the Responder answer and enter Full Operation (MPA-R-054). */
    private void onRequest(MpaStartupFrame request, ByteBuf in) {
        if (in.isReadable()) {
            invalid(in, "octets arrived after the Request frame before the Reply was sent");
            return;
        }
        String refusal = refusal(request);
        if (refusal != null) {
            sendRejectReply(request, new byte[0], refusal);
            return;
        }
        state = State.AWAITING_DECISION;
        CompletionStage<MpaDecision> decision;
        try {
            SocketAddress remote = ctx.channel().remoteAddress();
            decision = requestHandler.onConnectRequest(new MpaConnectRequest(request, remote));
        } catch (Throwable t) {
            decision = CompletableFuture.failedFuture(t);
        }
        decision.whenComplete((d, t) -> {
            if (ctx.executor().inEventLoop()) {
                decided(request, d, t);
            } else {
                ctx.executor().execute(() -> decided(request, d, t));
            }
        });
    }

    private void decided(MpaStartupFrame request, MpaDecision decision, Throwable error) {
        if (state != State.AWAITING_DECISION) {
            return;
        }
        if (error != null || decision == null) {
            MpaException e = new MpaException(MpaError.LOCAL_CATASTROPHIC, "the connect request handler failed", false);
            e.initCause(error);
            fail(e, true);
            return;
        }
        byte[] privateData = decision.privateData() != null ? decision.privateData() : settings.privateData();
        // An enhanced Request gets an enhanced Reply (MPA2-R-003), any other a plain RFC 5044 one,
        // also from a revision 2 Responder (MPA2-R-014).
        boolean enhanced = request.enhanced() && settings.revision() == REVISION_2;
        int room = MAX_PRIVATE_DATA - (enhanced ? ENHANCED_DATA_LENGTH : 0);
        if (privateData.length > room) {
            fail(new MpaException(MpaError.LOCAL_CATASTROPHIC, "the ULP's private data of " + privateData.length
                    + " octets does not fit in " + room, false), true);
            return;
        }
        if (!decision.isAccept()) {
            sendRejectReply(request, privateData, decision.reason());
            return;
        }
        IrdOrdNegotiation.Outcome negotiated = enhanced ? IrdOrdNegotiation.respond(request.enhancedData(), settings)
                : null;
        boolean markersFromPeer = settings.markers() == NegotiationMode.REQUIRE;
        boolean crc = settings.crc() == NegotiationMode.REQUIRE;
        MpaStartupFrame reply = MpaStartupFrame.reply(markersFromPeer, crc, false,
                enhanced ? REVISION_2 : REVISION_1, enhanced ? negotiated.replyWord : null, privateData);
        ctx.writeAndFlush(StartupFrameCodec.encode(ctx.alloc(), reply)).addListener(writeFailureCloses());
        // Markers toward the peer as its M asked, from it as ours did, each direction on its own
        // (MPA-R-046); CRC both ways if either frame had C (MPA-R-026, MPA-R-047), else none
        // from the first FPDU on (MPA-R-027).
        NegotiatedParameters parameters = new NegotiatedParameters(MpaRole.RESPONDER, reply.revision(),
                crc || request.crc(), request.markers(), markersFromPeer, sendMulpdu(request.markers()),
                settings.maxReceiveUlpdu(), request.ulpPrivateData(), request.enhancedData(),
                enhanced ? negotiated.ird : settings.ird(), enhanced ? negotiated.ord : settings.ord(),
                enhanced && negotiated.peerToPeer, null, mulpduFromConnection());
        enterFullOperation(parameters, null);
    }

    /** Why this end cannot take the peer's M or C bit, or {@code null} (see {@link NegotiationMode#OFF}). */
    private String refusal(MpaStartupFrame peerFrame) {
        if (peerFrame.markers() && settings.markers() == NegotiationMode.OFF) {
            return "the peer requires markers and markers are off here";
        }
        if (peerFrame.crc() && settings.crc() == NegotiationMode.OFF) {
            return "the peer requires CRC and CRC is off here";
        }
        return null;
    }

    private void sendRejectReply(MpaStartupFrame request, byte[] privateData, String reason) {
        boolean enhanced = request.enhanced() && settings.revision() == REVISION_2;
        EnhancedConnectionData word = enhanced ? IrdOrdNegotiation.respond(request.enhancedData(), settings).replyWord
                : null;
        MpaStartupFrame reply = MpaStartupFrame.reply(settings.markers() == NegotiationMode.REQUIRE,
                settings.crc() == NegotiationMode.REQUIRE, true, enhanced ? REVISION_2 : REVISION_1, word, privateData);
        ctx.writeAndFlush(StartupFrameCodec.encode(ctx.alloc(), reply));
        finishRejected(new MpaRejectedException(false, reply, reason));
    }

    // ---------------------------------------------------------------- Initiator

    /** The Initiator validates the Reply before anything else (MPA-R-058). */
    private void onReply(MpaStartupFrame reply, ByteBuf in) {
        if (reply.reject()) {
            // MPA ends, TCP stays open (MPA-R-059).
            in.skipBytes(in.readableBytes());
            finishRejected(new MpaRejectedException(true, reply, null));
            return;
        }
        boolean enhanced;
        if (sentRequest.enhanced()) {
            // MPA2-R-004: a revision 1 Reply is a plain RFC 5044 Responder (this end's choice);
            // revision 2 without S fails.
            if (reply.revision() == REVISION_1) {
                enhanced = false;
            } else if (!reply.enhanced()) {
                invalid(in, "revision 2 Reply without the enhanced flag to an enhanced Request (RFC 6581 §10)");
                return;
            } else {
                enhanced = true;
            }
        } else if (reply.revision() > sentRequest.revision() || reply.enhanced()) {
            invalid(in, "the Reply (" + reply + ") is enhanced or of a higher revision than the Request");
            return;
        } else {
            enhanced = false;
        }
        String refusal = refusal(reply);
        if (refusal != null && !enhanced) {
            in.skipBytes(in.readableBytes());
            fail(new MpaException(null, refusal), true);
            return;
        }
        IrdOrdNegotiation.Outcome negotiated = enhanced
                ? IrdOrdNegotiation.accept(reply.enhancedData(), settings, sentRequest.enhancedData().peerToPeer())
                : null;
        // Only the Reply decides M and C toward the Responder (MPA-R-080, MPA-R-046, MPA-R-047).
        NegotiatedParameters parameters = new NegotiatedParameters(MpaRole.INITIATOR, reply.revision(),
                sentRequest.crc() || reply.crc(), reply.markers(), sentRequest.markers(),
                sendMulpdu(reply.markers()), settings.maxReceiveUlpdu(), reply.ulpPrivateData(),
                reply.enhancedData(), enhanced ? negotiated.ird : settings.ird(),
                enhanced ? negotiated.ord : settings.ord(), enhanced && negotiated.peerToPeer,
                enhanced ? negotiated.rtr : null, mulpduFromConnection());
        MpaException setupError = null;
        if (enhanced && negotiated.error != null) {
            setupError = new MpaException(negotiated.error, negotiated.errorText);
        } else if (refusal != null) {
            // RFC 6581 §9.3 (MPA2-R-021): an enhanced Initiator's local error without a code of
            // its own (here NegotiationMode.OFF refusing the Reply's M or C) is a Terminate with
            // code 5 before the reset. It goes out as the Reply asked: with markers, with CRC.
            setupError = new MpaException(MpaError.LOCAL_CATASTROPHIC, refusal);
        }
        enterFullOperation(parameters, setupError);
    }

    /**
     * MULPDU from the settings and the connection's current MSS (the EMSS, RFC 5044 §4.5), which
     * also caps a fixed EMSS: only {@code maxSendUlpdu}, the explicit opt-in, may exceed it.
     */
    private int sendMulpdu(boolean markersToPeer) {
        return settings.sendMulpdu(markersToPeer, settings.maxSendUlpdu() == 0 ? ConnectionMss.of(ctx.channel()) : 0,
                ConnectionMss.ipv6(ctx.channel()));
    }

    private boolean mulpduFromConnection() {
        return settings.emssFromConnection() && ConnectionMss.of(ctx.channel()) > 0;
    }

    // ---------------------------------------------------------------- outcomes

    /**
     * Encoder and decoder replace this handler in one go, both directions at the same octet
     * (MPA-R-041), and the ULP (DDP) is attached by the startup event (MPA-R-042).
     */
    private void enterFullOperation(NegotiatedParameters parameters, MpaException setupError) {
        state = State.DONE;
        if (setupError == null) {
            timeout.cancel(false);
        } else {
            failure = setupError;
        }
        MpaMeters meters = MpaMeters.of(settings.meterRegistry());
        MpaFrameEncoder encoder = new MpaFrameEncoder(parameters.markersToPeer(), parameters.crc(),
                role == MpaRole.RESPONDER, meters);
        MpaFrameDecoder decoder = new MpaFrameDecoder(parameters.markersFromPeer(), parameters.crc(),
                parameters.maxReceiveUlpdu(), meters, role == MpaRole.RESPONDER ? encoder::openFence : null);
        ctx.pipeline().addBefore(ctx.name(), FRAME_ENCODER_NAME, encoder);
        ctx.pipeline().addAfter(ctx.name(), FRAME_DECODER_NAME, decoder);
        // Writes made from here on (in the startup() callbacks or on the MpaStartupEvent, while this
        // handler is still in the pipeline) go straight to the encoder; after a setup error that is
        // how the ULP's Terminate goes out.
        fullOperation = true;
        if (setupError == null) {
            // The ULP hears of Full Operation before the writes it made earlier go out, so that a
            // peer-to-peer Initiator's RTR, written on this event, is the first FPDU (MPA2-R-009).
            startup.complete(parameters);
            ctx.fireUserEventTriggered(MpaStartupEvent.success(parameters));
            pendingWrites.removeAndWriteAll();
            ctx.flush();
        } else {
            pendingWrites.removeAndFailAll(setupError);
            startup.completeExceptionally(setupError);
            ctx.fireUserEventTriggered(MpaStartupEvent.failure(setupError));
        }
        ctx.pipeline().remove(this);
    }

    private void finishRejected(MpaRejectedException rejected) {
        state = State.DONE;
        failure = rejected;
        timeout.cancel(false);
        pendingWrites.removeAndFailAll(rejected);
        startup.completeExceptionally(rejected);
        ctx.fireUserEventTriggered(MpaStartupEvent.failure(rejected));
        ctx.pipeline().remove(this);
    }

    private void fail(MpaException e, boolean close) {
        if (state == State.DONE) {
            return;
        }
        state = State.DONE;
        failure = e;
        if (timeout != null) {
            timeout.cancel(false);
        }
        pendingWrites.removeAndFailAll(e);
        startup.completeExceptionally(e);
        ctx.fireUserEventTriggered(MpaStartupEvent.failure(e));
        if (close) {
            ctx.close();
        }
    }

    private void timedOut() {
        if (state == State.DONE) {
            // Full Operation after an RFC 6581 setup error: the ULP had its chance to Terminate.
            ctx.channel().close();
            return;
        }
        fail(new MpaStartupTimeoutException(role, settings.startupTimeout()), true);
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) throws Exception {
        if (state != State.DONE) {
            boolean partial = internalBuffer().isReadable();
            fail(partial
                    ? new MpaException(MpaError.INVALID_STARTUP_FRAME,
                            "the connection ended inside a startup frame (" + internalBuffer().readableBytes()
                                    + " octets)")
                    : new MpaException(MpaError.CONNECTION_LOST, "the connection ended during MPA startup"
                            + peerToPeerHint()),
                    false);
        }
        super.channelInactive(ctx);
    }

    /**
     * The peer ended its stream (a FIN with half-closure allowed, or the connection's end) while a
     * startup frame was awaited: the frame can never be completed, so fail at once and close
     * (RFC 5044 §7.1.2, §8) instead of waiting for the startup timeout.
     */
    @Override
    protected void decodeLast(ChannelHandlerContext ctx, ByteBuf in, List<Object> out) throws Exception {
        super.decodeLast(ctx, in, out);
        if (state == State.AWAITING_FRAME) {
            boolean partial = in.isReadable();
            in.skipBytes(in.readableBytes());
            fail(partial
                    ? new MpaException(MpaError.INVALID_STARTUP_FRAME,
                            "the peer ended its stream inside a startup frame")
                    : new MpaException(MpaError.CONNECTION_LOST, "the peer ended its stream during MPA startup"
                            + peerToPeerHint()),
                    true);
        }
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        if (state == State.DONE) {
            ctx.fireExceptionCaught(cause);
            return;
        }
        MpaException e = new MpaException(MpaError.CONNECTION_LOST, "the connection failed during MPA startup"
                + peerToPeerHint());
        e.initCause(cause);
        fail(e, true);
    }

    /**
     * Initiator waiting for the Reply to a revision 2 Request without flag A: Intel's irdma resets
     * such a connection without a Reply ({@code irdma_negotiate_mpa_v2_ird_ord} returns
     * -EOPNOTSUPP, {@code irdma_handle_rcv_mpa} resets), the one hardware peer that needs A. Say so,
     * as the reset alone does not (docs/interop.md).
     */
    private String peerToPeerHint() {
        if (role == MpaRole.INITIATOR && state == State.AWAITING_FRAME && sentRequest != null
                && sentRequest.enhanced() && !sentRequest.enhancedData().peerToPeer()) {
            return " (before any Reply to our Request without peer-to-peer flag A: an Intel irdma Responder"
                    + " does that; MpaSettings.Builder.peerToPeer(true) reaches it)";
        }
        return "";
    }

    @Override
    protected void handlerRemoved0(ChannelHandlerContext ctx) {
        if (!pendingWrites.isEmpty()) {
            pendingWrites.removeAndFailAll(new ClosedChannelException());
        }
    }

    // ---------------------------------------------------------------- outbound

    @Override
    public void write(ChannelHandlerContext ctx, Object msg, ChannelPromise promise) {
        // Before Full Operation nothing but the startup frame goes out: the ULP's writes wait
        // (MPA-R-080 for the Initiator).
        if (fullOperation) {
            ctx.write(msg, promise);
        } else if (failure != null) {
            ReferenceCountUtil.release(msg);
            promise.setFailure(failure);
        } else {
            pendingWrites.add(msg, promise);
        }
    }

    @Override
    public void flush(ChannelHandlerContext ctx) {
        ctx.flush();
    }

    @Override
    public void bind(ChannelHandlerContext ctx, SocketAddress localAddress, ChannelPromise promise) {
        ctx.bind(localAddress, promise);
    }

    @Override
    public void connect(ChannelHandlerContext ctx, SocketAddress remoteAddress, SocketAddress localAddress,
                        ChannelPromise promise) {
        ctx.connect(remoteAddress, localAddress, promise);
    }

    @Override
    public void disconnect(ChannelHandlerContext ctx, ChannelPromise promise) {
        ctx.disconnect(promise);
    }

    @Override
    public void close(ChannelHandlerContext ctx, ChannelPromise promise) {
        ctx.close(promise);
    }

    @Override
    public void deregister(ChannelHandlerContext ctx, ChannelPromise promise) {
        ctx.deregister(promise);
    }

    @Override
    public void read(ChannelHandlerContext ctx) {
        ctx.read();
    }
}
