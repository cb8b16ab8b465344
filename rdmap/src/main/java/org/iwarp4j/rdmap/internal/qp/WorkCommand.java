package org.iwarp4j.rdmap.internal.qp;

import org.iwarp4j.rdmap.ReceiveWorkRequest;
import org.iwarp4j.rdmap.SendWorkRequest;

/**
 * What another thread asks of a queue pair's event loop, one record per kind: the queue carries
 * these instead of bare objects, and each dispatches itself to the {@link Handler}, so adding a
 * kind is a compile error until every handler knows it.
 */
public sealed interface WorkCommand permits WorkCommand.PostSend, WorkCommand.PostReceive,
        WorkCommand.CloseGracefully, WorkCommand.Abort {

    void dispatch(Handler handler);

    /**
     * Whether a receive posted on the event loop must not overtake this command while it is queued
     * ({@link WorkQueue#postReceives}). Queued receives are barriers because receives keep their
     * posting order among themselves (RFC 5040 §5.3, RDMAP-R-020: Sends consume the buffers in the
     * order they were posted). A queued close or abort is a barrier because a receive posted after
     * the close was asked for must be flushed by it (RFC 5040 §6.2.1), never filled by a Send read
     * before the close ran. Send work is not: a receive posted ahead of it can only be there sooner
     * for the peer's Sends.
     */
    boolean holdsBackReceives();

    /** {@code ibv_post_send}: one send-queue work request. */
    record PostSend(SendWorkRequest request) implements WorkCommand {
        @Override
        public boolean holdsBackReceives() {
            return false;
        }

        @Override
        public void dispatch(Handler handler) {
            handler.postSend(request);
        }
    }

    /** {@code ibv_post_recv}: one receive buffer. */
    record PostReceive(ReceiveWorkRequest request) implements WorkCommand {
        @Override
        public boolean holdsBackReceives() {
            return true;
        }

        @Override
        public void dispatch(Handler handler) {
            handler.postReceive(request);
        }
    }

    /** Orderly close (RFC 5040 §6.2): after the sends posted before it. */
    record CloseGracefully() implements WorkCommand {
        @Override
        public boolean holdsBackReceives() {
            return true;
        }

        @Override
        public void dispatch(Handler handler) {
            handler.closeGracefully();
        }
    }

    /** Abortive close: the connection is closed at once. */
    record Abort() implements WorkCommand {
        @Override
        public boolean holdsBackReceives() {
            return true;
        }

        @Override
        public void dispatch(Handler handler) {
            handler.abort();
        }
    }

    /** The event-loop side that runs commands. */
    interface Handler {
        void postSend(SendWorkRequest request);

        void postReceive(ReceiveWorkRequest request);

        /**
         * {@link #postReceive} without a command, for a receive posted on the event loop itself
         * ({@link WorkQueue#postReceives}): posts it and returns {@code true} only if that
         * completes nothing now (a valid receive on a live queue pair); otherwise does nothing and
         * returns {@code false}, and the receive goes through the queue as any other. So a
         * completion queue listener that posts is never called again from inside its own post.
         */
        default boolean postReceiveNow(ReceiveWorkRequest request) {
            return false;
        }

        void closeGracefully();

        void abort();

        /** Runs once after each drain: one flush of the channel for everything the drain wrote. */
        void drained();

        /**
         * {@code command} threw {@code cause} instead of running: a bug of the stack's, since a post
         * refuses what the engine cannot take. Called where the command ran ({@link
         * WorkQueue#drain}), so that the commands behind it still run; the work request it carried
         * is in no queue and must be completed here.
         */
        void commandFailed(WorkCommand command, Throwable cause);
    }
}
