package org.iwarp4j.tools.rpc;

import org.iwarp4j.tools.bench.internal.NettyIo;
import io.micrometer.core.instrument.MeterRegistry;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.channel.EventLoopGroup;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.iwarp4j.tools.bench.ConnectFailedException;
import org.iwarp4j.oncrpc.RpcClient;
import org.iwarp4j.oncrpc.RpcTcpClientTransport;
import org.iwarp4j.oncrpc.sample.EchoClient;
import org.iwarp4j.oncrpc.sample.EchoProgram;
import org.iwarp4j.rdmap.Rnic;
import org.iwarp4j.rpcrdma.RpcRdmaRequester;

/**
 * The client end: one RPC-over-RDMA connection (a Requester on its own software RNIC) and, unless
 * {@code --no-tcp}, one ONC RPC connection over plain TCP to the same server; warms both up over
 * every procedure and size, then measures each procedure and size on both, alternating which goes
 * first.
 */
public final class RpcBenchClient implements AutoCloseable {

    private static final long CONNECT_SECONDS = 15;

    private final RpcBenchSettings settings;
    private final Rnic rnic;
    private EventLoopGroup tcpGroup;
    private RpcRdmaRequester requester;
    private RpcClient rdmaClient;
    private RpcClient tcpClient;

    public RpcBenchClient(RpcBenchSettings settings, InetSocketAddress rdmaServer, InetSocketAddress tcpServer,
                   MeterRegistry rnicMeters) throws IOException, InterruptedException {
        this.settings = settings;
        this.rnic = settings.rnic("client", rnicMeters);
        try {
            requester = connect(RpcRdmaRequester.connect(rnic, rdmaServer, settings.rdmaSettings()),
                    "RPC-over-RDMA", rdmaServer);
            rdmaClient = RpcClient.builder(requester).timeout(Duration.ofSeconds(30)).build();
            if (settings.compareTcp()) {
                tcpGroup = NettyIo.group(settings.transport());
                RpcTcpClientTransport tcp = connect(RpcTcpClientTransport.builder()
                        .maxRecordSize(EchoProgram.DEFAULT_MAX_DATA + 4096)
                        .eventLoopGroup(tcpGroup, NettyIo.socketChannel(settings.transport()))
                        .connect(tcpServer), "ONC RPC over TCP", tcpServer);
                tcpClient = RpcClient.builder(tcp).timeout(Duration.ofSeconds(30)).build();
            }
            nullCall(rdmaClient, "RPC-over-RDMA");
            if (tcpClient != null) {
                nullCall(tcpClient, "ONC RPC over TCP");
            }
        } catch (IOException | InterruptedException | RuntimeException e) {
            close();
            throw e;
        }
    }

    private static <T> T connect(java.util.concurrent.CompletableFuture<T> connecting, String what,
                                 InetSocketAddress server) throws ConnectFailedException, InterruptedException {
        try {
            return connecting.get(CONNECT_SECONDS, TimeUnit.SECONDS);
        } catch (ExecutionException e) {
            throw new ConnectFailedException(what + " to " + server + ": " + e.getCause().getMessage(), e.getCause());
        } catch (TimeoutException e) {
            connecting.cancel(true);
            throw new ConnectFailedException(what + " to " + server + ": no connection within " + CONNECT_SECONDS
                    + " s", e);
        }
    }

    /** A NULL call first: over RDMA the Responder's credit grant arrives with the first reply. */
    private static void nullCall(RpcClient client, String what) throws IOException, InterruptedException {
        try {
            new EchoClient(client).nullCall().get(30, TimeUnit.SECONDS);
        } catch (ExecutionException | TimeoutException e) {
            throw new IOException("NULL over " + what + " failed: " + (e.getCause() == null ? e : e.getCause()), e);
        }
    }

    /** The RPC-over-RDMA connection (for its inline thresholds and credits). */
    public RpcRdmaRequester requester() {
        return requester;
    }

    /**
     * The warm-up: {@link RpcBenchSettings#warmupSlice()} seconds of calls for every procedure and
     * size on each transport (in the order the measurement takes them), so that the first transport
     * or procedure measured does not pay alone for compiling the code; returns each row's calls,
     * whose replies were verified like the measured ones.
     */
    public List<Rates> warmUp() throws IOException, InterruptedException {
        List<Rates> all = new ArrayList<>();
        if (settings.warmupSeconds() <= 0) {
            return all;
        }
        int row = 0;
        for (EchoProcedure procedure : settings.procedures()) {
            for (int size : settings.sizes()) {
                all.add(run(procedure, size, rdmaFirst(row++), 0, settings.warmupSlice()));
            }
        }
        return all;
    }

    /**
     * Row {@code row} (from 0): {@code procedure} with {@code size}-octet payloads over both
     * transports, RDMA first on even rows and TCP first on odd ones (TCP null without TCP).
     */
    public Rates measure(EchoProcedure procedure, int size, int row) throws IOException, InterruptedException {
        return run(procedure, size, rdmaFirst(row), settings.calls(), settings.durationSeconds());
    }

    private static boolean rdmaFirst(int row) {
        return row % 2 == 0;
    }

    private Rates run(EchoProcedure procedure, int size, boolean rdmaFirst, long calls, double seconds)
            throws IOException, InterruptedException {
        ByteBuf payload = pattern(size);
        try {
            int crc = EchoProgram.crc32c(payload);
            RpcRate tcp = null;
            if (tcpClient != null && !rdmaFirst) {
                tcp = loop(tcpClient).run(procedure, payload, crc, calls, seconds);
            }
            RpcRate rdma = loop(rdmaClient).run(procedure, payload, crc, calls, seconds);
            if (tcpClient != null && rdmaFirst) {
                tcp = loop(tcpClient).run(procedure, payload, crc, calls, seconds);
            }
            return new Rates(procedure, rdma, tcp);
        } finally {
            payload.release();
        }
    }

    /** One procedure and size over RPC-over-RDMA and over TCP ({@code tcp} null without TCP). */
    public record Rates(EchoProcedure procedure, RpcRate rdma, RpcRate tcp) {
    }

    private CallLoop loop(RpcClient client) {
        return new CallLoop(new EchoClient(client), settings.inFlight());
    }

    /** The first {@code size} octets of the SOURCE pattern in one direct buffer, which every call shares. */
    private static ByteBuf pattern(int size) {
        ByteBuf source = EchoProgram.source(size, PooledByteBufAllocator.DEFAULT);
        try {
            ByteBuf payload = PooledByteBufAllocator.DEFAULT.directBuffer(size, size);
            payload.writeBytes(source, source.readerIndex(), size);
            return payload;
        } finally {
            source.release();
        }
    }

    @Override
    public void close() {
        if (rdmaClient != null) {
            rdmaClient.close();
        } else if (requester != null) {
            requester.close();
        }
        if (tcpClient != null) {
            tcpClient.close();
        }
        if (tcpGroup != null) {
            tcpGroup.shutdownGracefully(0, 2, TimeUnit.SECONDS).syncUninterruptibly();
        }
        rnic.close();
    }
}
