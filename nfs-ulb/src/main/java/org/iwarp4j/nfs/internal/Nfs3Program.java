package org.iwarp4j.nfs.internal;

import static org.iwarp4j.nfs.v3.Nfs3Constants.*;

import java.io.IOException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.function.BiConsumer;
import java.util.function.BiFunction;
import java.util.function.Consumer;
import java.util.function.Function;
import org.iwarp4j.nfs.v3.Access3Args;
import org.iwarp4j.nfs.v3.Commit3Args;
import org.iwarp4j.nfs.v3.Create3Args;
import org.iwarp4j.nfs.v3.Create3Res;
import org.iwarp4j.nfs.v3.DirOpArgs3;
import org.iwarp4j.nfs.v3.Link3Args;
import org.iwarp4j.nfs.v3.Link3Res;
import org.iwarp4j.nfs.v3.Mkdir3Args;
import org.iwarp4j.nfs.v3.Mknod3Args;
import org.iwarp4j.nfs.v3.Nfs3Status;
import org.iwarp4j.nfs.v3.NfsFh3;
import org.iwarp4j.nfs.v3.Read3Args;
import org.iwarp4j.nfs.v3.Readdir3Args;
import org.iwarp4j.nfs.v3.Readdirplus3Args;
import org.iwarp4j.nfs.v3.Rename3Args;
import org.iwarp4j.nfs.v3.Rename3Res;
import org.iwarp4j.nfs.v3.Setattr3Args;
import org.iwarp4j.nfs.v3.Symlink3Args;
import org.iwarp4j.nfs.v3.WccRes3;
import org.iwarp4j.nfs.v3.Write3Args;
import org.iwarp4j.oncrpc.RpcProcedure;
import org.iwarp4j.oncrpc.RpcProgram;
import org.iwarp4j.oncrpc.XdrDecoder;
import org.iwarp4j.oncrpc.XdrEncoder;
import org.iwarp4j.oncrpc.internal.LogRateLimit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * NFS version 3 as an ONC RPC program (RFC 1813 §3.3): each procedure decodes its arguments on the
 * transport's thread (an undecodable call is GARBAGE_ARGS at once), runs on the worker executor
 * (file-system calls block), and encodes its results with the transport's allocator. Every
 * procedure but NULL acts as the call's {@link Caller} (its squashed AUTH_SYS identity and
 * whether its address is admitted), which the operations check.
 */
public final class Nfs3Program {

    private static final Logger log = LoggerFactory.getLogger(Nfs3Program.class);
    /** A failing disk fails every operation's force: a few warnings per interval (Linux's net_ratelimit numbers). */
    private final LogRateLimit commitFailureLog = new LogRateLimit(10, 5, java.util.concurrent.TimeUnit.SECONDS,
            System::nanoTime);

    private final Executor workers;
    private final Nfs3Context ctx;
    private final AttributeOps attributes;
    private final NamespaceOps names;
    private final DirectoryOps directories;
    private final DataOps data;

    public Nfs3Program(Nfs3Context ctx, Executor workers) {
        this.ctx = ctx;
        this.workers = workers;
        this.attributes = new AttributeOps(ctx);
        this.names = new NamespaceOps(ctx, attributes);
        this.directories = new DirectoryOps(ctx);
        this.data = new DataOps(ctx);
    }

    /**
     * The procedures, the ones that change the file system registered as non-idempotent (knfsd's
     * list: SETATTR, WRITE, CREATE, MKDIR, SYMLINK, MKNOD, REMOVE, RMDIR, RENAME, LINK), so that a
     * client's retransmission after a lost connection gets the first reply from the dispatcher's
     * duplicate request cache instead of, say, NFS3ERR_NOENT from a second REMOVE.
     */
    public RpcProgram toRpcProgram() {
        int maxWrite = ctx.limits().maxWrite();
        return RpcProgram.builder(PROGRAM, VERSION)
                .procedure(NFSPROC3_NULL, RpcProcedure.nullProcedure())
                .procedure(NFSPROC3_GETATTR, proc(NfsFh3::decode, shared((a, c) -> attributes.getattr(a, c)), (r, o) -> r.encode(o)))
                .nonIdempotentProcedure(NFSPROC3_SETATTR, proc(Setattr3Args::decode, sharedThenCommitted((a, c) -> attributes.setattr(a, c), (r, st) -> new WccRes3(st, r.wcc())), (r, o) -> r.encode(o)))
                .procedure(NFSPROC3_LOOKUP, proc(Nfs3Program::dirOpArgs, shared((a, c) -> names.lookup(a, c)), (r, o) -> r.encode(o)))
                .procedure(NFSPROC3_ACCESS, proc(Access3Args::decode, shared((a, c) -> attributes.access(a, c)), (r, o) -> r.encode(o)))
                .procedure(NFSPROC3_READLINK, proc(NfsFh3::decode, shared((a, c) -> names.readlink(a, c)), (r, o) -> r.encode(o)))
                .procedure(NFSPROC3_READ, proc(Read3Args::decode, (a, c) -> data.read(a, c),
                        (r, o) -> r.encode(o), a -> { }))
                .nonIdempotentProcedure(NFSPROC3_WRITE, proc(in -> Write3Args.decode(in, maxWrite), (a, c) -> data.write(a, c),
                        (r, o) -> r.encode(o), Write3Args::release))
                .nonIdempotentProcedure(NFSPROC3_CREATE, proc(in -> checked(Create3Args.decode(in), Create3Args::where), changingNames((a, c) -> names.create(a, c), (r, st) -> Create3Res.fail(st, r.dirWcc())),
                        (r, o) -> r.encode(o)))
                .nonIdempotentProcedure(NFSPROC3_MKDIR, proc(in -> checked(Mkdir3Args.decode(in), Mkdir3Args::where), changingNames((a, c) -> names.mkdir(a, c), (r, st) -> Create3Res.fail(st, r.dirWcc())),
                        (r, o) -> r.encode(o)))
                .nonIdempotentProcedure(NFSPROC3_SYMLINK, proc(in -> checked(Symlink3Args.decode(in), Symlink3Args::where), changingNames((a, c) -> names.symlink(a, c), (r, st) -> Create3Res.fail(st, r.dirWcc())),
                        (r, o) -> r.encode(o)))
                .nonIdempotentProcedure(NFSPROC3_MKNOD, proc(in -> checked(Mknod3Args.decode(in), Mknod3Args::where), changingNames((a, c) -> names.mknod(a, c), (r, st) -> Create3Res.fail(st, r.dirWcc())), (r, o) -> r.encode(o)))
                .nonIdempotentProcedure(NFSPROC3_REMOVE, proc(Nfs3Program::dirOpArgs, changingNames((a, c) -> names.remove(a, c), (r, st) -> new WccRes3(st, r.wcc())), (r, o) -> r.encode(o)))
                .nonIdempotentProcedure(NFSPROC3_RMDIR, proc(Nfs3Program::dirOpArgs, changingNames((a, c) -> names.rmdir(a, c), (r, st) -> new WccRes3(st, r.wcc())), (r, o) -> r.encode(o)))
                .nonIdempotentProcedure(NFSPROC3_RENAME, proc(in -> checked(checked(Rename3Args.decode(in), Rename3Args::from), Rename3Args::to), changingNames((a, c) -> names.rename(a, c), (r, st) -> new Rename3Res(st, r.fromdirWcc(), r.todirWcc())), (r, o) -> r.encode(o)))
                .nonIdempotentProcedure(NFSPROC3_LINK, proc(in -> checked(Link3Args.decode(in), Link3Args::link), changingNames((a, c) -> names.link(a, c), (r, st) -> new Link3Res(st, r.fileAttributes(), r.linkdirWcc())), (r, o) -> r.encode(o)))
                .procedure(NFSPROC3_READDIR, proc(Readdir3Args::decode, shared((a, c) -> directories.readdir(a, c)),
                        (r, o) -> r.encode(o)))
                .procedure(NFSPROC3_READDIRPLUS, proc(Readdirplus3Args::decode, shared((a, c) -> directories.readdirplus(a, c)),
                        (r, o) -> r.encode(o)))
                .procedure(NFSPROC3_FSSTAT, proc(NfsFh3::decode, shared((a, c) -> attributes.fsstat(a, c)), (r, o) -> r.encode(o)))
                .procedure(NFSPROC3_FSINFO, proc(NfsFh3::decode, shared((a, c) -> attributes.fsinfo(a, c)), (r, o) -> r.encode(o)))
                .procedure(NFSPROC3_PATHCONF, proc(NfsFh3::decode, shared((a, c) -> attributes.pathconf(a, c)),
                        (r, o) -> r.encode(o)))
                .procedure(NFSPROC3_COMMIT, proc(Commit3Args::decode, (a, c) -> data.commit(a, c), (r, o) -> r.encode(o)))
                .build();
    }

    /**
     * An operation that resolves handles and acts on their paths, holding the namespace lock
     * shared from the resolution to its last call on a path (see {@link NamespaceLock}). READ,
     * WRITE and COMMIT are not wrapped: they hold it only to open their channel.
     */
    private <A, R> BiFunction<A, Caller, R> shared(BiFunction<A, Caller, R> op) {
        return (a, c) -> {
            try (NamespaceLock.Hold names = ctx.namespace().shared()) {
                return op.apply(a, c);
            }
        };
    }

    /**
     * An operation that adds, removes or moves names, holding the namespace lock exclusively; what
     * it changed is made stable after the lock is released and before the reply
     * ({@link MetadataCommits}), a failure to do so answered as {@code failed} with NFS3ERR_IO.
     */
    private <A, R> BiFunction<A, Caller, R> changingNames(BiFunction<A, Caller, R> op,
                                                          BiFunction<R, Nfs3Status, R> failed) {
        return committed(op, failed, true);
    }

    /** SETATTR: the namespace lock shared, what it changed made stable as for {@link #changingNames}. */
    private <A, R> BiFunction<A, Caller, R> sharedThenCommitted(BiFunction<A, Caller, R> op,
                                                                BiFunction<R, Nfs3Status, R> failed) {
        return committed(op, failed, false);
    }

    private <A, R> BiFunction<A, Caller, R> committed(BiFunction<A, Caller, R> op, BiFunction<R, Nfs3Status, R> failed,
                                                      boolean exclusive) {
        return (a, c) -> {
            try (MetadataCommits.Scope changes = ctx.metadata().begin()) {
                R result;
                try (NamespaceLock.Hold names = exclusive ? ctx.namespace().exclusive() : ctx.namespace().shared()) {
                    result = op.apply(a, c);
                }
                try {
                    changes.commit();
                    return result;
                } catch (IOException e) {
                    long held = commitFailureLog.admit();
                    if (held >= 0) {
                        log.warn("NFSv3: what an operation changed could not be made stable ({} more not warned of): {}",
                                held, e.toString());
                    }
                    return failed.apply(result, Nfs3Status.NFS3ERR_IO);
                }
            }
        };
    }

    private static DirOpArgs3 dirOpArgs(XdrDecoder in) {
        return Nfs3Context.checkSyntax(DirOpArgs3.decode(in));
    }

    private static <A> A checked(A args, Function<A, DirOpArgs3> where) {
        Nfs3Context.checkSyntax(where.apply(args));
        return args;
    }

    private <A, R> RpcProcedure proc(Function<XdrDecoder, A> decode, BiFunction<A, Caller, R> op,
                                     BiConsumer<R, XdrEncoder> encode) {
        return proc(decode, op, encode, a -> { });
    }

    /**
     * @param releaseUnrun releases the arguments if the operation never runs (the executor refused
     *     it); an operation that runs owns its arguments
     */
    private <A, R> RpcProcedure proc(Function<XdrDecoder, A> decode, BiFunction<A, Caller, R> op,
                                     BiConsumer<R, XdrEncoder> encode, Consumer<A> releaseUnrun) {
        return (context, args) -> {
            A decoded = decode.apply(args);
            try {
                args.argumentsDone(); // a Read chunk no argument took: not processed (RPC-R-073)
            } catch (RuntimeException misplaced) {
                releaseUnrun.accept(decoded);
                throw misplaced;
            }
            Caller caller = ctx.caller(context);
            try {
                return CompletableFuture.supplyAsync(() -> {
                    R result = op.apply(decoded, caller);
                    XdrEncoder out = context.newEncoder();
                    try {
                        encode.accept(result, out);
                    } catch (RuntimeException e) {
                        out.discard();
                        throw e;
                    }
                    return out.toMessage();
                }, workers);
            } catch (RuntimeException rejected) {
                releaseUnrun.accept(decoded);
                throw rejected;
            }
        };
    }
}
