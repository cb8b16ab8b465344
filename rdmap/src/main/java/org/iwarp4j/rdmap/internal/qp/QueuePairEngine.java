package org.iwarp4j.rdmap.internal.qp;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelDuplexHandler;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelPromise;
import java.io.IOException;
import java.net.SocketAddress;
import java.nio.channels.ClosedChannelException;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import org.iwarp4j.mpa.MpaError;
import org.iwarp4j.mpa.MpaException;
import org.iwarp4j.mpa.MpaFrameDecoder;
import org.iwarp4j.mpa.MpaStartupHandler;
import org.iwarp4j.mpa.MpaRole;
import org.iwarp4j.mpa.MpaStartupEvent;
import org.iwarp4j.mpa.NegotiatedParameters;
import org.iwarp4j.mpa.PlacementRecvByteBufAllocator;
import org.iwarp4j.rdmap.CompletionQueue;
import org.iwarp4j.rdmap.QueuePairSettings;
import org.iwarp4j.rdmap.QueuePairState;
import org.iwarp4j.rdmap.ReceiveWorkRequest;
import org.iwarp4j.rdmap.SendWorkRequest;
import org.iwarp4j.rdmap.TerminateReason;
import org.iwarp4j.rdmap.WorkCompletionStatus;
import org.iwarp4j.rdmap.internal.wire.TerminateBuilder;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * RDMAP for one queue pair (RFC 5040), the handler after MPA's in the connection's pipeline. All
 * queue pair state lives on the channel's event loop. This class ties the connection's events to
 * the parts that do the work: inbound ULPDUs to the {@link ReceivePath}, posted work from the
 * {@link WorkQueue} to the {@link Transmitter} and the receive path, errors and the teardown to
 * the {@link Terminator}. It also owns the startup (MPA's result) and the wake-up Write.
 *
 * <p>One engine per TCP connection, holding the one DDP receiver and the one transmitter of that
 * connection: the RDMAP stream is the connection's only DDP stream, and it leans on MPA over TCP
 * below for reliable, in-order delivery instead of doing any of its own (RDMAP-R-001).
 */
public final class QueuePairEngine extends ChannelDuplexHandler implements WorkCommand.Handler {

    private static final Logger log = LoggerFactory.getLogger(QueuePairEngine.class);
    /** What {@link #localFailure} says of MPA's CONNECTION_LOST from the frame decoder. */
    static final String CONNECTION_LOST_MID_FPDU = "connection closed by the peer mid-FPDU";
    /** What {@link #writeFailed} says when a pending write met a close this queue pair did not ask for. */
    static final String CLOSED_UNDER_WRITE =
            "connection closed under a pending write (not by this queue pair's close or abort)";
    /** What {@link #channelInactive} says when the connection ended under outstanding sends, unasked. */
    static final String CLOSED_UNDER_SENDS =
            "connection closed with work outstanding, not by this queue pair (by the peer, or by closing the RNIC)";
    /** The same when this end was closing the connection itself (close or abort). */
    static final String CLOSED_MID_FPDU = "connection closed by this end mid-FPDU";

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
    private static final long NO_POST_RUNNING = -1;
    /**
     * The queues' {@code postsTaken} counts when the post running now began, or {@link
     * #NO_POST_RUNNING} once it returned: what {@link #commandFailed} reads of a post that threw.
     */
    private long sendsTakenBeforePost = NO_POST_RUNNING;
    private long receivesTakenBeforePost = NO_POST_RUNNING;
    private MpaRole role;
    /** An orderly close waits for the last messages to be written (see {@link #closeWhenWritten}). */
    private boolean lingering;
    /** Pending while {@link #lingering}; closes the connection when it runs. */
    private ScheduledFuture<?> lingerTimer;
    /** The teardown ran (see {@link #tearDown}): it must run exactly once, whichever event brings it. */
    private boolean tornDown;

    public QueuePairEngine(QueuePairPort port) {
        this.port = port;
        this.completions = new Completions(port);
    }

    @Override
    public void handlerAdded(ChannelHandlerContext ctx) {
        this.ctx = ctx;
        this.terminator = new Terminator(port, completions, ctx);
        this.transmitter = new Transmitter(port, completions, ctx, this::closeWhenIdle, this::firstMessageSent,
                this::writeFailed, cause -> exceptionCaught(ctx, cause));
        this.receivePath = new ReceivePath(port, completions, terminator, transmitter, ctx);
        terminator.bind(receivePath, transmitter);
        completions.failTo(new Completions.Undelivered() {
            @Override
            public void overrun(CompletionQueue cq) {
                completionQueueOverrun(cq);
            }

            @Override
            public void failed(Throwable failure) {
                // A completion queue listener's exception: a local failure, as one from the pipeline.
                exceptionCaught(ctx, failure);
            }
        });
        port.workQueue().bind(ctx.executor(), this, completions.flushing());
    }

    // ------------------------------------------------------------------ work queue commands

    /**
     * Work queued behind a close or abort was posted after it was asked for (the queue is in
     * posting order): it is not carried out but flushed (RFC 5040 §6.2.1, {@link
     * org.iwarp4j.rdmap.QueuePair#postSend}), in its place in posting order. A Send posted right
     * after {@code close()} used to be written to the channel the close had just closed, and
     * completed FATAL with no reason.
     */
    @Override
    public void postSend(SendWorkRequest request) {
        sendsTakenBeforePost = transmitter.postsTaken();
        if (terminator.isTerminated()) {
            completions.flushing().postSend(request);
        } else if (closing) {
            // The ULP asked for the graceful close: a send request made after it fails (flushed)
            // instead of going out behind it (DDP-R-040).
            transmitter.postFlushed(request);
        } else {
            transmitter.post(request);
        }
        sendsTakenBeforePost = NO_POST_RUNNING;
    }

    /**
     * As {@link #postSend}: a receive posted after a close or abort is held back from DDP, so that
     * no Send read while the close lingers fills it, and is flushed after those posted before.
     */
    @Override
    public void postReceive(ReceiveWorkRequest request) {
        receivesTakenBeforePost = receivePath.postsTaken();
        if (terminator.isTerminated()) {
            completions.flushing().postReceive(request);
        } else if (closing) {
            receivePath.postAfterClose(request);
        } else {
            receivePath.postReceive(request);
        }
        receivesTakenBeforePost = NO_POST_RUNNING;
    }

    @Override
    public boolean postReceiveNow(ReceiveWorkRequest request) {
        // Once a close or abort has run, the connection is going: a receive posted now takes the
        // queue, as one from any other thread would, and is flushed with the rest.
        return !closing && !terminator.isTerminated() && receivePath.postReceiveIfValid(request);
    }

    @Override
    public void closeGracefully() {
        closing = true;
        // Also while the startup still runs (IDLE): no new work from now on, and establishment
        // leaves the state at CLOSING (QueuePairPort.established moves only IDLE to RTS).
        if (port.state() == QueuePairState.RTS || port.state() == QueuePairState.IDLE) {
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

    /**
     * A command threw (a bug of this stack's: {@link WorkCommand.Handler#commandFailed}). The state
     * it left behind is unknown, so the queue pair fails as for any local failure, without a
     * Terminate ({@link #exceptionCaught}); first its work request, in no queue, completes FATAL
     * with the exception as failure cause, as a request whose posting the {@link Transmitter}
     * saw fail does. The commands behind it are flushed.
     */
    @Override
    public void commandFailed(WorkCommand command, Throwable cause) {
        if (!terminator.isTerminated()) {
            port.failed(cause);
        }
        if (!takenBeforeItThrew(command)) {
            command.dispatch(completions.completing(WorkCompletionStatus.FATAL));
        }
        exceptionCaught(ctx, cause);
    }

    /**
     * Whether the post that threw had taken its request into a queue first: then the queue
     * completes it (the flush of {@link #exceptionCaught}, if not already), and completing it here
     * as well would complete it twice. The counts are read around the one post that ran last.
     */
    private boolean takenBeforeItThrew(WorkCommand command) {
        long sendsBefore = sendsTakenBeforePost;
        long receivesBefore = receivesTakenBeforePost;
        sendsTakenBeforePost = NO_POST_RUNNING;
        receivesTakenBeforePost = NO_POST_RUNNING;
        if (command instanceof WorkCommand.PostSend) {
            return sendsBefore != NO_POST_RUNNING && transmitter.postsTaken() != sendsBefore;
        }
        return command instanceof WorkCommand.PostReceive && receivesBefore != NO_POST_RUNNING
                && receivePath.postsTaken() != receivesBefore;
    }

    /**
     * An orderly close goes on once this end's own send queue is empty: the messages the ULP gave
     * before its close still go out before TCP is closed (DDP-R-040).
     */
    private void closeWhenIdle() {
        if (closing && transmitter.idle() && !lingering) {
            lingering = true;
            closeWhenWritten();
            long linger = port.settings().closeLinger().toNanos();
            if (ctx.channel().isOpen()) {
                lingerTimer = ctx.executor().schedule(this::lingerEnded, linger, TimeUnit.NANOSECONDS);
            }
        }
    }

    /**
     * Closes once every message given to the channel has been written: the Read Responses to the
     * peer's RDMA Reads still under way (made as the socket takes them, or in Netty's outbound
     * buffer) go out whole, as RFC 5040 §2 lets every operation in progress complete in a graceful
     * termination (RDMAP-R-034); a close at once discarded them and the peer's Reads failed
     * mid-FPDU. A response to a Read Request read meanwhile is waited for too. Bounded by
     * {@link QueuePairSettings#closeLinger()}.
     */
    private void closeWhenWritten() {
        ChannelFuture last = transmitter.lastWritten();
        if (last == null || last.isDone()) {
            ctx.close();
        } else {
            ctx.flush(); // MPA writes an FPDU's trailer, and so completes its write, on a flush
            last.addListener(f -> closeWhenWritten());
        }
    }

    /** The peer did not take the last messages within the linger (it stopped reading): close anyway. */
    private void lingerEnded() {
        lingerTimer = null;
        if (ctx.channel().isOpen()) {
            log.debug("queue pair {}: closed after {} with messages to the peer still unwritten",
                    port.queuePair().number(), port.settings().closeLinger());
            ctx.close();
        }
    }

    private void cancelLinger() {
        if (lingerTimer != null) {
            lingerTimer.cancel(false);
            lingerTimer = null;
        }
    }

    // ------------------------------------------------------------------ startup

    /**
     * As Initiator: a TCP connect that fails (refused, unreachable, timed out) fails the queue
     * pair before the channel is deregistered, so that the work {@link #tearDown} then flushes
     * carries the connect's failure, not a closed connection's.
     */
    @Override
    public void connect(ChannelHandlerContext ctx, SocketAddress remote, SocketAddress local, ChannelPromise promise) {
        promise.addListener(f -> {
            if (!f.isSuccess()) {
                port.failedToEstablish(f.cause());
            }
        });
        ctx.connect(remote, local, promise);
    }

    @Override
    public void userEventTriggered(ChannelHandlerContext ctx, Object evt) throws Exception {
        if (evt instanceof MpaStartupEvent) {
            MpaStartupEvent startup = (MpaStartupEvent) evt;
            if (startup.isSuccess()) {
                start(startup.parameters());
            } else {
                MpaException cause = startup.cause();
                if (cause.terminateRequired()) {
                    // RFC 6581 §9.1/§9.2: insufficient IRD or no usable RTR -> Terminate, then close;
                    // §9.3: likewise code 5 for a local error without a code of its own (MPA2-R-021).
                    terminator.sendTerminate(TerminateBuilder.forMpaError(cause.error()));
                    // Now, not at teardown: the queue pair is terminated from here on, so work
                    // posted from now (after a close in the failed connect's callback, say)
                    // completes FLUSHED at once, and must not overtake the work posted before the
                    // connect, which the close after the Terminate's write would flush (RDMAP-R-031).
                    terminator.failAll(WorkCompletionStatus.FLUSHED, port.terminateReason());
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

    /**
     * A fatal error of the layers below, MPA's or TCP's, is never swallowed: it ends the queue pair
     * and its work with a failure the ULP sees (DDP-R-043; a header DDP refuses is the receive
     * path's, answered with a Terminate).
     */
    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        if (cause instanceof MpaException && ((MpaException) cause).terminateRequired()) {
            // RDMAP-R-037: an LLP error surfaced by MPA (CRC, marker) -> Terminate Layer 2, then close.
            terminator.sendTerminateAndFail(TerminateBuilder.forMpaError(((MpaException) cause).error()));
            return;
        }
        // No Terminate for the rest: MPA's CONNECTION_LOST (RFC 5044 §8 code 1) means there is no
        // stream left to carry one, and a local exception is no protocol error of the peer's.
        // There is no TerminateReason either, so the failure itself is what the user gets to see:
        // without it a FATAL completion says nothing of why (a bench run once failed that way).
        if (!terminator.isTerminated()) {
            Throwable failure = localFailure(cause, closing);
            logFailure("failed", failure, cause);
            port.failed(failure);
            terminator.markTerminated();
            terminator.failAll(WorkCompletionStatus.FATAL, null);
        } else {
            log.debug("queue pair {}, already terminated, then failed on {}", port.queuePair().number(),
                    ctx.channel(), cause);
        }
        ctx.close();
    }

    /**
     * A peer can make every connection it opens fail this way, so the warnings go through the
     * RNIC's {@link LogRateLimit}; those it holds back are logged at debug level and counted into
     * the next warning.
     */
    private void logFailure(String how, Throwable failure, Throwable cause) {
        long unlogged = port.failureLogLimit().admit();
        if (unlogged >= 0) {
            log.warn("queue pair {} {} on {}: {} ({} failures not logged since the last message)",
                    port.queuePair().number(), how, ctx.channel(), failure, unlogged, cause);
        } else {
            log.debug("queue pair {} {} on {}", port.queuePair().number(), how, ctx.channel(), cause);
        }
    }

    /**
     * The failure as the user sees it: the exception itself (its {@code toString()} names class
     * and message), except that the frame decoder's CONNECTION_LOST (the connection ended with an
     * FPDU half received) says in plain words who ended it: the peer, unless this end was closing.
     */
    private static Throwable localFailure(Throwable cause, boolean closing) {
        if (cause instanceof MpaException && ((MpaException) cause).error() == MpaError.CONNECTION_LOST) {
            return new IOException((closing ? CLOSED_MID_FPDU : CONNECTION_LOST_MID_FPDU) + ": "
                    + cause.getMessage(), cause);
        }
        return cause;
    }

    /**
     * A completion queue was full, and a completion of this queue pair is lost: whoever waits for
     * its work request would wait forever, and the completions after it would arrive behind the
     * gap. As on an RNIC (IB and RDMAC verbs: a completion queue overrun is an asynchronous error
     * that puts the queue pairs completing into it into ERROR), the queue pair fails: nothing more
     * is placed, sent or answered, and its outstanding work is flushed (into a queue that may well
     * be full still: those completions are lost too, which the failure cause explains). The peer
     * is told with a Terminate, RDMAP Local Catastrophic Error (0x0/0x0/0x00, no headers: RFC 5040
     * §7.1 #1 for an error not tied to an incoming message, RDMAP-R-036, RDMAP-R-026), so that its
     * work fails with a reason instead of a bare closed connection.
     */
    private void completionQueueOverrun(CompletionQueue cq) {
        if (terminator.isTerminated()) {
            log.debug("queue pair {}, already terminated, lost a flushed completion: completion queue of {} full",
                    port.queuePair().number(), cq.capacity());
            return;
        }
        IllegalStateException overrun = new IllegalStateException("completion queue overrun, capacity "
                + cq.capacity() + ": a completion of queue pair " + port.queuePair().number() + " was lost");
        logFailure("failed", overrun, overrun);
        port.failed(overrun);
        terminator.sendTerminateAndFail(TerminateBuilder.forLocalError(TerminateReason.RDMAP_LOCAL_CATASTROPHIC));
    }

    /**
     * A message's write failed. Unless this end was closing, or the queue pair already failed (a
     * Terminate, or an exception above), nothing else says why: the write's cause is the failure.
     * Netty fails the writes still queued when the connection closes with a bare
     * ClosedChannelException, which is reworded: the close came from elsewhere (the peer, most
     * likely; its own report, such as a connection lost mid-FPDU, comes after this one).
     */
    private void writeFailed(Throwable cause) {
        if (!closing && !terminator.isTerminated() && port.terminateReason() == null) {
            Throwable failure = cause instanceof ClosedChannelException
                    ? new IOException(CLOSED_UNDER_WRITE, cause) : cause;
            logFailure("failed on a write", failure, cause);
            port.failed(failure);
        }
    }

    /**
     * The socket took enough of what was queued: the next segments of a Read Response in
     * progress are made now ({@link Transmitter#respondToRead}).
     */
    @Override
    public void channelWritabilityChanged(ChannelHandlerContext ctx) throws Exception {
        if (ctx.channel().isWritable() && transmitter.writeUnsent()) {
            ctx.flush();
        }
        super.channelWritabilityChanged(ctx);
    }

    /**
     * Removed with the pipeline of a closed channel, after channelInactive, or instead of it: Netty
     * fires channelInactive only for a channel that was active, so one whose TCP connect failed
     * (refused, unreachable, timed out) is deregistered without it. Posted work then still
     * completes as flushed here (RFC 5040 §6.2.1, RDMAP-R-035).
     */
    @Override
    public void handlerRemoved(ChannelHandlerContext ctx) {
        tearDown();
        transmitter.dropUnsent(new ClosedChannelException()); // anything given since the teardown
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) throws Exception {
        tearDown();
        super.channelInactive(ctx);
    }

    /**
     * The connection is gone: nothing more is sent or placed, every outstanding and posted work
     * request completes as flushed (RDMAP-R-035) and the queue pair is closed down, which is how the
     * ULP learns that the LLP connection was lost (DDP-R-043). Exactly once,
     * from channelInactive or handlerRemoved, whichever comes first.
     */
    private void tearDown() {
        if (tornDown) {
            return;
        }
        tornDown = true;
        cancelWakeUpWrite();
        cancelLinger();
        terminator.cancelCloseTimer();
        // Messages not yet written (a Read Response in progress, those given after it) fail as
        // Netty failed the channel's own queued writes: first, with the closed channel's cause.
        transmitter.dropUnsent(new ClosedChannelException());
        if (!closing && !terminator.isTerminated() && !transmitter.idle()) {
            // Flushed sends would otherwise carry no reason at all (a peer that closes between two
            // FPDUs leaves no error behind). Only with sends outstanding: a connection that ends
            // with nothing but posted receives is an ordinary end, not a failure.
            log.debug("queue pair {}: {}", port.queuePair().number(), CLOSED_UNDER_SENDS);
            port.failed(new IOException(CLOSED_UNDER_SENDS));
        }
        terminator.markTerminated();
        terminator.failAll(WorkCompletionStatus.FLUSHED, port.terminateReason());
        receivePath.release();
        port.closedDown();
    }
}
