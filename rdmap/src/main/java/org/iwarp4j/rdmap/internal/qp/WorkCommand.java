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

    /** {@code ibv_post_send}: one send-queue work request. */
    record PostSend(SendWorkRequest request) implements WorkCommand {
        @Override
        public void dispatch(Handler handler) {
            handler.postSend(request);
        }
    }

    /** {@code ibv_post_recv}: one receive buffer. */
    record PostReceive(ReceiveWorkRequest request) implements WorkCommand {
        @Override
        public void dispatch(Handler handler) {
            handler.postReceive(request);
        }
    }

    /** Orderly close (RFC 5040 §6.2): after the sends posted before it. */
    record CloseGracefully() implements WorkCommand {
        @Override
        public void dispatch(Handler handler) {
            handler.closeGracefully();
        }
    }

    /** Abortive close: the connection is closed at once. */
    record Abort() implements WorkCommand {
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
    }
}
