package org.iwarp4j.rdmap.internal.qp;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelDuplexHandler;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import org.iwarp4j.mpa.MpaException;
import org.iwarp4j.mpa.MpaFrameDecoder;
import org.iwarp4j.mpa.MpaStartupHandler;
import org.iwarp4j.mpa.MpaRole;
import org.iwarp4j.mpa.MpaStartupEvent;
import org.iwarp4j.mpa.NegotiatedParameters;
import org.iwarp4j.mpa.PlacementRecvByteBufAllocator;
import org.iwarp4j.rdmap.QueuePairSettings;
import org.iwarp4j.rdmap.QueuePairState;
import org.iwarp4j.rdmap.ReceiveWorkRequest;
import org.iwarp4j.rdmap.SendWorkRequest;
import org.iwarp4j.rdmap.WorkCompletionStatus;
import org.iwarp4j.rdmap.internal.wire.TerminateBuilder;

/**
 * RDMAP for one queue pair (RFC 5040), the handler after MPA's in the connection's pipeline. All
 * queue pair state lives on the channel's event loop. This class ties the connection's events to
 * the parts that do the work: inbound ULPDUs to the {@link ReceivePath}, posted work from the
 * {@link WorkQueue} to the {@link Transmitter} and the receive path, errors and the teardown to
 * the {@link Terminator}. It also owns the startup (MPA's result) and the wake-up Write.
 */
public final class QueuePairEngine extends ChannelDuplexHandler implements WorkCommand.Handler {

    private final QueuePairPort port;
    private final Completions completions;
    private ChannelHandlerContext ctx;
    private Transmitter transmitter;
    private ReceivePath receivePath;
    private Terminator terminator;
    private boolean closing;
    /** Pending until the peer's first ULPDU; see {@link QueuePairSettings.Builder#wakeUpWriteAfter}. */
    private ScheduledFuture<?> wakeUpWrite;
    private boolean heardFromPeer;
    private MpaRole role;

    public QueuePairEngine(QueuePairPort port) {
        this.port = port;
        this.completions = new Completions(port);
    }

    @Override
    public void handlerAdded(ChannelHandlerContext ctx) {
        this.ctx = ctx;
        this.terminator = new Terminator(port, completions, ctx);
        this.transmitter = new Transmitter(port, completions, ctx, this::closeWhenIdle, this::firstMessageSent);
        this.receivePath = new ReceivePath(port, completions, terminator, transmitter, ctx);
        terminator.bind(receivePath, transmitter);
        port.workQueue().bind(ctx.executor(), this);
    }

    // ------------------------------------------------------------------ work queue commands

    @Override
    public void postSend(SendWorkRequest request) {
        if (terminator.isTerminated()) {
            completions.flushing().postSend(request);
        } else {
            transmitter.post(request);
        }
    }

    @Override
    public void postReceive(ReceiveWorkRequest request) {
        if (terminator.isTerminated()) {
            completions.flushing().postReceive(request);
        } else {
            receivePath.postReceive(request);
        }
    }

    @Override
    public void closeGracefully() {
        closing = true;
        if (port.state() == QueuePairState.RTS) {
            port.moveTo(QueuePairState.CLOSING);
        }
        closeWhenIdle();
    }

    @Override
    public void abort() {
        closing = true;
        ctx.close(); // channelInactive flushes the outstanding work
    }

    @Override
    public void drained() {
        ctx.flush();
    }

    private void closeWhenIdle() {
        if (closing && transmitter.idle()) {
            ctx.close();
        }
    }

    // ------------------------------------------------------------------ startup

    @Override
    public void userEventTriggered(ChannelHandlerContext ctx, Object evt) throws Exception {
        if (evt instanceof MpaStartupEvent) {
            MpaStartupEvent startup = (MpaStartupEvent) evt;
            if (startup.isSuccess()) {
                start(startup.parameters());
            } else {
                MpaException cause = startup.cause();
                if (cause.terminateRequired()) {
                    // RFC 6581 §9.1/§9.2: insufficient IRD or no usable RTR -> Terminate, then close.
                    terminator.sendTerminate(TerminateBuilder.forMpaError(cause.error()));
                }
                port.failedToEstablish(cause);
            }
        }
        super.userEventTriggered(ctx, evt);
    }

    private void start(NegotiatedParameters parameters) {
        receivePath.start(parameters);
        int threshold = port.settings().directPlacementThreshold();
        ChannelHandler decoder = ctx.pipeline().get(MpaStartupHandler.FRAME_DECODER_NAME);
        // Only where reads can be directed (Rnic gives its connections the allocator; a channel
        // set up otherwise, e.g. a test's, may not have it);
        // elsewhere the advisor would only move the ordinary path's one copy to another place.
        if (threshold != QueuePairSettings.NO_DIRECT_PLACEMENT && decoder instanceof MpaFrameDecoder
                && ctx.channel().config().getRecvByteBufAllocator() instanceof PlacementRecvByteBufAllocator) {
            ((MpaFrameDecoder) decoder).placementAdvisor(receivePath, threshold);
        }
        role = parameters.role();
        transmitter.start(parameters);
        port.established(parameters);
        ctx.flush();
    }

    /**
     * As Initiator, arms the wake-up Write. A Responder never needs it: MPA holds its FPDUs until
     * the Initiator's first has arrived (MPA-R-061), and the race it answers is in the peer's accept.
     */
    private void firstMessageSent() {
        long wakeUpNanos = port.settings().wakeUpWriteAfter().toNanos();
        if (role == MpaRole.INITIATOR && wakeUpNanos > 0 && !heardFromPeer) {
            wakeUpWrite = ctx.executor().schedule(this::wakeUpSilentResponder, wakeUpNanos, TimeUnit.NANOSECONDS);
        }
    }

    /** Runs only if the Responder sent nothing yet: our first FPDU may sit unread in its socket. */
    private void wakeUpSilentResponder() {
        wakeUpWrite = null;
        if (!terminator.isTerminated() && ctx.channel().isActive()) {
            port.meters().wakeUpWriteSent();
            transmitter.zeroLengthWrite();
            ctx.flush();
        }
    }

    private void cancelWakeUpWrite() {
        if (wakeUpWrite != null) {
            wakeUpWrite.cancel(false);
            wakeUpWrite = null;
        }
    }

    // ------------------------------------------------------------------ receive, errors, teardown

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (!(msg instanceof ByteBuf)) {
            ctx.fireChannelRead(msg);
            return;
        }
        heardFromPeer = true;
        cancelWakeUpWrite();
        receivePath.ulpduReceived((ByteBuf) msg);
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        if (cause instanceof MpaException && ((MpaException) cause).terminateRequired()) {
            // RDMAP-R-037: an LLP error surfaced by MPA (CRC, marker) -> Terminate Layer 2, then close.
            terminator.sendTerminateAndFail(TerminateBuilder.forMpaError(((MpaException) cause).error()));
            return;
        }
        if (!terminator.isTerminated()) {
            terminator.markTerminated();
            terminator.failAll(WorkCompletionStatus.FATAL, null);
        }
        ctx.close();
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) throws Exception {
        cancelWakeUpWrite();
        terminator.cancelCloseTimer();
        terminator.markTerminated();
        terminator.failAll(WorkCompletionStatus.FLUSHED, port.terminateReason());
        receivePath.release();
        port.closedDown();
        super.channelInactive(ctx);
    }
}
