package org.iwarp4j.oncrpc;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/**
 * One procedure of a server program (RFC 5531 §7).
 *
 * <p>The procedure decodes its arguments from {@code args} and returns a stage that completes
 * with its results as an {@link XdrMessage} (without the reply header; pieces may be
 * DDP-eligible, e.g. READ data, RFC 8166 §3.4.2). The dispatcher takes over that message. The
 * arguments' buffer stays valid until the returned stage completes; a procedure that keeps
 * argument data longer retains it.
 *
 * <p>Failures choose the reply (RFC 5531 §9): an {@link XdrException} or
 * {@link RpcGarbageArgsException} gives GARBAGE_ARGS, {@link RpcProcedureUnavailableException}
 * PROC_UNAVAIL, {@link RpcAuthException} a denied AUTH_ERROR with its stat, anything else
 * SYSTEM_ERR — thrown directly or completing the stage exceptionally.
 */
@FunctionalInterface
public interface RpcProcedure {

    CompletionStage<XdrMessage> call(RpcCallContext context, XdrDecoder args);

    /** A procedure that runs to completion on the calling thread. */
    static RpcProcedure of(Synchronous body) {
        return (context, args) -> {
            XdrEncoder results = context.newEncoder();
            try {
                body.call(context, args, results);
            } catch (RuntimeException e) {
                results.discard();
                throw e;
            }
            return CompletableFuture.completedFuture(results.toMessage());
        };
    }

    /** The null procedure: no arguments, no results (RFC 5531 §7, procedure 0 by convention). */
    static RpcProcedure nullProcedure() {
        return of((context, args, results) -> { });
    }

    /** The body of a synchronous procedure: reads {@code args}, writes {@code results}. */
    @FunctionalInterface
    interface Synchronous {
        void call(RpcCallContext context, XdrDecoder args, XdrEncoder results);
    }
}
