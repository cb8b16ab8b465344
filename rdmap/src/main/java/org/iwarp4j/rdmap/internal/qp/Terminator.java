package org.iwarp4j.rdmap.internal.qp;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import java.util.OptionalInt;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import org.iwarp4j.ddp.DdpException;
import org.iwarp4j.mpa.MpaFrameEncoder;
import org.iwarp4j.mpa.MpaStartupHandler;
import org.iwarp4j.rdmap.QueuePairSettings;
import org.iwarp4j.rdmap.QueuePairState;
import org.iwarp4j.rdmap.TerminateReason;
import org.iwarp4j.rdmap.WorkCompletionStatus;
import org.iwarp4j.rdmap.internal.wire.OffendingSegment;
import org.iwarp4j.rdmap.internal.wire.TerminateBuilder;
import org.iwarp4j.rdmap.internal.wire.TerminateCause;
import org.iwarp4j.rdmap.internal.wire.TerminateMessage;

/**
 * Fatal errors of one queue pair (RFC 5040 §7; siw_qp_cm_drop / siw_send_terminate): exactly one
 * Terminate with the layer, type and code of the error, then a graceful TCP close that is bounded,
 * whatever the peer or the ULP does (RDMAP-R-046); the queue pair goes to ERROR and every
 * outstanding work request completes (RFC 5040 §6.2.1, RDMAP-R-035).
 *
 * <p>A Terminate that MPA may not send (a Responder before the Initiator's first valid FPDU,
 * MPA-R-061) is withheld and the connection closed at once; one that was written is given {@link
 * QueuePairSettings#terminateCloseTimeout()} to leave, then the connection is closed anyway.
 */
final class Terminator {

    private final QueuePairPort port;
    private final Completions completions;
    private final ChannelHandlerContext ctx;
    private final EngineMeters meters;
    private ReceivePath receivePath;
    private Transmitter transmitter;
    private boolean terminated;
    /** Pending while a written Terminate has not left; closes the connection when it runs. */
    private ScheduledFuture<?> closeTimer;

    Terminator(QueuePairPort port, Completions completions, ChannelHandlerContext ctx) {
        this.port = port;
        this.completions = completions;
        this.ctx = ctx;
        this.meters = port.meters();
    }

    void bind(ReceivePath receivePath, Transmitter transmitter) {
        this.receivePath = receivePath;
        this.transmitter = transmitter;
    }

    /** {@code true} once the queue pair failed or its connection went away: nothing more is placed or sent. */
    boolean isTerminated() {
        return terminated;
    }

    /** The connection is going away without a Terminate of ours (it closed, or the peer sent one). */
    void markTerminated() {
        terminated = true;
    }

    /** A DDP error in {@code offending} (the ULPDU being processed, or {@code null}). */
    void terminateFor(DdpException e, ByteBuf offending) {
        sendTerminateAndFail(TerminateBuilder.forDdpError(e.error().errorType(), e.error().code(),
                capture(offending)));
    }

    /** An RDMAP error in {@code offending} (the ULPDU being processed, or {@code null}). */
    void terminate(TerminateCause cause, ByteBuf offending) {
        sendTerminateAndFail(TerminateBuilder.build(cause, capture(offending)));
    }

    private static OffendingSegment capture(ByteBuf offending) {
        return offending == null ? null : OffendingSegment.capture(offending);
    }

    void sendTerminateAndFail(TerminateMessage message) {
        if (terminated) {
            return;
        }
        sendTerminate(message);
        failAll(WorkCompletionStatus.FATAL, message.reason());
    }

    /**
     * Exactly one Terminate, then no more messages and a graceful close (RDMAP-R-027), which must
     * happen (RDMAP-R-046, RFC 5044 §8: closing after errors 2 and 3 is this layer's duty,
     * MPA-R-075). A Responder whose MPA encoder is still fenced cannot send the Terminate: the
     * fence opens only once the Initiator's first FPDU has passed MPA's checks (MPA-R-061), and
     * MPA opens it before that FPDU reaches us, so a Terminate meets the fence only for an MPA
     * error (CRC, marker, ULPDU_Length) in that first FPDU, after which MPA delivers nothing more
     * on that half connection (MPA-R-074) and the fence can never open. Sending is "not always
     * possible" (RFC 5040 §6.2.1, RDMAP-R-036's best effort): the Terminate is withheld and the
     * connection closed at once. Otherwise the close follows the Terminate's write, or {@link
     * QueuePairSettings#terminateCloseTimeout()}, whichever comes first.
     */
    void sendTerminate(TerminateMessage message) {
        if (terminated) {
            return;
        }
        terminated = true;
        if (receivePath != null) {
            receivePath.stop();
        }
        port.terminated(message.reason(), false, OptionalInt.empty());
        port.moveTo(QueuePairState.TERMINATE);
        if (mpaFenced()) {
            meters.terminateWithheld();
            port.withheldTerminate();
            ctx.close();
            return;
        }
        meters.terminateSent(message.reason());
        // After the messages already given, a Read Response in progress included (RDMAP-R-027).
        transmitter.writeTerminate(message.encodeSegment(ctx.alloc())).addListener(ChannelFutureListener.CLOSE);
        ctx.flush();
        long timeout = port.settings().terminateCloseTimeout().toNanos();
        if (timeout == 0) {
            ctx.close();
        } else if (ctx.channel().isOpen()) {
            closeTimer = ctx.executor().schedule(this::closeTimedOut, timeout, TimeUnit.NANOSECONDS);
        }
    }

    /** The peer's Terminate (RFC 5040 §5.4) was decoded: fail the queue pair and close. */
    void terminateReceived(TerminateReason reason, OptionalInt stag) {
        terminated = true;
        meters.terminateReceived(reason);
        receivePath.stop();
        port.terminated(reason, true, stag);
        port.moveTo(QueuePairState.TERMINATE);
        failAll(statusFor(reason), reason);
        ctx.close();
    }

    private static WorkCompletionStatus statusFor(TerminateReason reason) {
        if (reason.layer() == TerminateReason.Layer.LLP) {
            return WorkCompletionStatus.FATAL;
        }
        boolean protection = (reason.layer() == TerminateReason.Layer.DDP && reason.errorType() == 0x1)
                || (reason.layer() == TerminateReason.Layer.RDMAP && reason.errorType() == 0x1);
        return protection ? WorkCompletionStatus.REMOTE_ACCESS_ERROR : WorkCompletionStatus.REMOTE_OPERATION_ERROR;
    }

    /** Whether MPA still holds back everything this end writes (a Responder, MPA-R-061). */
    private boolean mpaFenced() {
        ChannelHandler encoder = ctx.pipeline().get(MpaStartupHandler.FRAME_ENCODER_NAME);
        return encoder instanceof MpaFrameEncoder && ((MpaFrameEncoder) encoder).isFenced();
    }

    /** The Terminate did not leave in time (the peer stopped reading): give up on it and close. */
    private void closeTimedOut() {
        closeTimer = null;
        if (ctx.channel().isOpen()) {
            meters.terminateCloseTimedOut();
            ctx.close();
        }
    }

    void cancelCloseTimer() {
        if (closeTimer != null) {
            closeTimer.cancel(false);
            closeTimer = null;
        }
    }

    /** Completes every outstanding and posted work request (RFC 5040 §6.2.1, RDMAP-R-035). */
    void failAll(WorkCompletionStatus headStatus, TerminateReason reason) {
        transmitter.flush(headStatus, reason);
        if (receivePath != null) {
            receivePath.flushReceives(reason);
        }
        // What was queued by now; a listener's repost in reply to these completions is flushed by
        // the next drain, or a listener that reposts whatever completes would keep this loop, and
        // the close, going for ever.
        port.workQueue().runQueued(completions.flushing());
        port.moveTo(QueuePairState.ERROR);
    }
}
