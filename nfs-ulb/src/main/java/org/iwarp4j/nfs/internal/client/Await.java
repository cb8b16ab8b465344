package org.iwarp4j.nfs.internal.client;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;

/**
 * Waits on the caller's thread for a future of the NFS clients (a call, a transport being
 * connected), as their blocking helpers do.
 *
 * <p>It adds no deadline of its own: every call's future is bounded by the {@code RpcClient}'s
 * timeout (which fails it with {@code RpcTimeoutException}), and a connect by the transport's.
 */
public final class Await {

    private Await() {
    }

    /**
     * The future's value. A failure surfaces as its own {@link RuntimeException} (an NFS status,
     * an RPC timeout) rather than wrapped, any other cause wrapped in a {@link CompletionException};
     * an interrupt cancels the future, keeps the thread's interrupt flag and throws.
     */
    public static <T> T await(CompletableFuture<T> f) {
        try {
            return f.get();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            f.cancel(true);
            throw new CompletionException(e);
        } catch (ExecutionException e) {
            Throwable cause = e.getCause();
            if (cause instanceof RuntimeException re) {
                throw re;
            }
            throw new CompletionException(cause);
        }
    }
}
