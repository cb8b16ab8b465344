package org.iwarp4j.nfs;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.iwarp4j.nfs.v3.NfsFh3;

/** Test helper: an {@link NfsServer} on loopback TCP exporting a directory, and a client mounted on it. */
final class NfsTcpFixture implements AutoCloseable {

    /**
     * What the tests of the procedures need: their client is AUTH_SYS uid 0 and writes, so the
     * export is read-write without root squash (exports(5) {@code rw,no_root_squash}).
     */
    static final ExportOptions TRUSTED_ROOT = ExportOptions.builder().readWrite().rootSquash(false).build();

    final NfsServer server;
    final NfsClient client;

    private NfsTcpFixture(NfsServer server, NfsClient client) {
        this.server = server;
        this.client = client;
    }

    static NfsTcpFixture start(Path directory) throws IOException {
        NfsServer server = NfsServer.builder(directory).exportOptions(TRUSTED_ROOT)
                .tcpAddress(new InetSocketAddress("127.0.0.1", 0))
                .workerThreads(2).start();
        try {
            NfsClient client = NfsClient.builder(new InetSocketAddress("127.0.0.1", server.tcpPort())).connect();
            return new NfsTcpFixture(server, client);
        } catch (IOException | RuntimeException e) {
            server.close();
            throw e;
        }
    }

    NfsFh3 root() {
        return client.root();
    }

    static <T> T get(CompletableFuture<T> f) {
        try {
            return f.get(20, TimeUnit.SECONDS);
        } catch (Exception e) {
            throw new AssertionError(e);
        }
    }

    static ByteBuf ascii(String s) {
        return Unpooled.copiedBuffer(s, StandardCharsets.US_ASCII);
    }

    @Override
    public void close() {
        client.close();
        server.close();
    }
}
