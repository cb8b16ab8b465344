package org.iwarp4j.nfs.internal.v4;

import static org.iwarp4j.nfs.v4.Nfs4Constants.*;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import org.iwarp4j.oncrpc.RpcProcedure;
import org.iwarp4j.oncrpc.RpcProgram;

/**
 * NFS version 4 as an ONC RPC program (RFC 8881 §16): NULL and COMPOUND. A COMPOUND is decoded
 * as it runs, on the worker executor (file-system calls block); its arguments stay valid until
 * the returned stage completes, as {@link RpcProcedure} promises.
 */
public final class Nfs4Program {

    private final CompoundProcessor processor;
    private final Executor workers;

    public Nfs4Program(Nfs4Context ctx, Executor workers) {
        this.processor = new CompoundProcessor(ctx);
        this.workers = workers;
    }

    public CompoundProcessor processor() {
        return processor;
    }

    public RpcProgram toRpcProgram() {
        return RpcProgram.builder(PROGRAM, VERSION)
                .procedure(NFSPROC4_NULL, RpcProcedure.nullProcedure())
                .procedure(NFSPROC4_COMPOUND, (context, args) ->
                        CompletableFuture.supplyAsync(() -> processor.compound(context, args), workers))
                .build();
    }
}
