package org.iwarp4j.nfs.internal;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.iwarp4j.nfs.ExportOptions;
import org.iwarp4j.nfs.NfsClient;
import org.iwarp4j.oncrpc.RpcDispatcher;
import org.iwarp4j.oncrpc.RpcTcpServer;

/**
 * Test helper: the NFSv3 and MOUNT programs of one {@link Nfs3Context} (read-write, no root
 * squash, file handles the test may give) behind an RPC/TCP server on loopback with four workers,
 * and a client mounted on it; the procedures run as the server runs them, with the namespace lock
 * and the metadata commits of {@link Nfs3Program}.
 */
final class Nfs3OverTcp implements AutoCloseable {

    static final long WAIT_MILLIS = 10_000;

    final Nfs3Context ctx;
    final NfsClient client;
    private final RpcTcpServer server;
    private final ExecutorService workers;

    private Nfs3OverTcp(Nfs3Context ctx, RpcTcpServer server, NfsClient client, ExecutorService workers) {
        this.ctx = ctx;
        this.server = server;
        this.client = client;
        this.workers = workers;
    }

    static Nfs3OverTcp start(Export export, FileHandles handles) throws IOException {
        Nfs3Context ctx = new Nfs3Context(export, ExportOptions.builder().readWrite().rootSquash(false).build(),
                Nfs3Limits.defaults(), handles);
        ExecutorService workers = Executors.newFixedThreadPool(4);
        RpcTcpServer server = null;
        try {
            RpcDispatcher dispatcher = new RpcDispatcher().register(new Nfs3Program(ctx, workers).toRpcProgram())
                    .register(new MountProgram(ctx).toRpcProgram());
            server = RpcTcpServer.builder(dispatcher).bind(new InetSocketAddress("127.0.0.1", 0));
            NfsClient client = NfsClient.builder(new InetSocketAddress("127.0.0.1",
                    ((InetSocketAddress) server.localAddress()).getPort())).export(export.name()).connect();
            return new Nfs3OverTcp(ctx, server, client, workers);
        } catch (IOException | RuntimeException e) {
            if (server != null) {
                server.close();
            }
            workers.shutdownNow();
            ctx.close();
            throw e;
        }
    }

    static <T> T get(CompletableFuture<T> f) {
        try {
            return f.get(WAIT_MILLIS, TimeUnit.MILLISECONDS);
        } catch (Exception e) {
            throw new AssertionError(e);
        }
    }

    @Override
    public void close() {
        client.close();
        server.close();
        workers.shutdownNow();
        ctx.close();
    }
}
