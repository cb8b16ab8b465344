package org.iwarp4j.tools.rpc;

import org.iwarp4j.tools.bench.internal.NettyIo;
import org.iwarp4j.tools.internal.RateLimitedLines;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.netty.channel.EventLoopGroup;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.function.Consumer;
import org.iwarp4j.oncrpc.AcceptStat;
import org.iwarp4j.oncrpc.RpcDispatcher;
import org.iwarp4j.oncrpc.RpcTcpServer;
import org.iwarp4j.oncrpc.sample.EchoProgram;
import org.iwarp4j.rdmap.Rnic;
import org.iwarp4j.rpcrdma.RpcRdmaResponder;
import org.iwarp4j.rpcrdma.RpcRdmaServer;

/**
 * The server end: the echo program on RPC-over-RDMA (its own software RNIC) and on ONC RPC over
 * plain TCP, at once, each with a dispatcher of its own so the calls of each transport are counted.
 */
public final class RpcBenchServer implements AutoCloseable {

    private final Rnic rnic;
    private final EventLoopGroup tcpGroup;
    private final SimpleMeterRegistry rdmaCalls = new SimpleMeterRegistry();
    private final SimpleMeterRegistry tcpCalls = new SimpleMeterRegistry();
    /** The line for each connection that ends, or null: a peer can open and close as many as it likes. */
    private final RateLimitedLines closedLines;
    private RpcRdmaServer rdma;
    private RpcTcpServer tcp;

    /**
     * Listens on {@code rdmaAddress} and {@code tcpAddress}; {@code closed} hears of each
     * RPC-over-RDMA connection that ends (its peer and calls), or is null. It hears of at most 10
     * every 5 seconds, then of the number held back ("... suppressed K similar lines"), on a thread
     * of its own: never on an event loop, which a blocked standard output would hold.
     */
    public RpcBenchServer(RpcBenchSettings settings, InetSocketAddress rdmaAddress, InetSocketAddress tcpAddress,
                   MeterRegistry rnicMeters, Consumer<String> closed) throws IOException {
        this(closed == null ? null : new RateLimitedLines(closed, "iwarp-bench-rpc-server-lines"), settings,
                rdmaAddress, tcpAddress, rnicMeters);
    }

    /** As above, the lines going to {@code closedLines} (tests give it a clock), closed with this server. */
    RpcBenchServer(RateLimitedLines closedLines, RpcBenchSettings settings, InetSocketAddress rdmaAddress,
                   InetSocketAddress tcpAddress, MeterRegistry rnicMeters) throws IOException {
        this.closedLines = closedLines;
        this.rnic = settings.rnic("server", rnicMeters);
        this.tcpGroup = NettyIo.group(settings.transport());
        try {
            rdma = RpcRdmaServer.listen(rnic, rdmaAddress,
                    new RpcDispatcher(rdmaCalls).register(EchoProgram.create()), settings.rdmaSettings());
            if (closedLines != null) {
                rdma.onConnection(r -> r.closeFuture().whenComplete((v, e) -> closedLines.print(describe(r))));
            }
            tcp = RpcTcpServer.builder(new RpcDispatcher(tcpCalls).register(EchoProgram.create()))
                    .maxRecordSize(EchoProgram.DEFAULT_MAX_DATA + 4096)
                    .eventLoopGroup(tcpGroup, NettyIo.serverSocketChannel(settings.transport()))
                    .bind(tcpAddress);
        } catch (InterruptedException e) {
            close();
            Thread.currentThread().interrupt();
            throw new IOException("interrupted while listening", e);
        } catch (Exception e) { // a bind failure is Netty's undeclared checked BindException
            close();
            String words = org.iwarp4j.tools.net.ConnectErrors.cannotListen(rdmaAddress, e);
            throw new IOException(words.endsWith(" is already in use")
                    ? org.iwarp4j.tools.net.ConnectErrors.where(rdmaAddress) + " (RDMA) or "
                    + org.iwarp4j.tools.net.ConnectErrors.where(tcpAddress) + " (TCP) is already in use"
                    : "cannot listen on " + org.iwarp4j.tools.net.ConnectErrors.where(rdmaAddress) + " (RDMA) and "
                    + org.iwarp4j.tools.net.ConnectErrors.where(tcpAddress) + " (TCP): "
                    + org.iwarp4j.tools.net.ConnectErrors.reason(e), e);
        }
    }

    private static String describe(RpcRdmaResponder r) {
        return "RPC-over-RDMA connection from " + r.remoteAddress() + " closed after " + r.callsReceived()
                + " calls (inline " + r.callInlineThreshold() + "/" + r.replyInlineThreshold() + ")";
    }

    public InetSocketAddress rdmaAddress() {
        return (InetSocketAddress) rdma.localAddress();
    }

    public InetSocketAddress tcpAddress() {
        return (InetSocketAddress) tcp.localAddress();
    }

    /** Calls answered with SUCCESS over RPC-over-RDMA. */
    public long rdmaCallsServed() {
        return served(rdmaCalls);
    }

    /** Calls answered with SUCCESS over TCP. */
    public long tcpCallsServed() {
        return served(tcpCalls);
    }

    private static long served(SimpleMeterRegistry calls) {
        return (long) calls.get("iwarp.oncrpc.replies").tag("stat", AcceptStat.SUCCESS.name()).counter().count();
    }

    @Override
    public void close() {
        if (rdma != null) {
            rdma.close();
        }
        if (tcp != null) {
            tcp.close();
        }
        rnic.close();
        tcpGroup.shutdownGracefully(0, 2, java.util.concurrent.TimeUnit.SECONDS).syncUninterruptibly();
        if (closedLines != null) {
            // Last: the connections closed above are reported until the RNIC's event loops end.
            closedLines.close();
        }
    }
}
