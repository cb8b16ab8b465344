package org.iwarp4j.rpcrdma;

import java.net.InetSocketAddress;
import org.iwarp4j.oncrpc.RpcDispatcher;
import org.iwarp4j.oncrpc.RpcTcpServer;
import org.iwarp4j.oncrpc.sample.EchoProgram;
import org.iwarp4j.rdmap.Rnic;
import org.iwarp4j.rpcrdma.sample.EchoBinding;

/**
 * The echo program served over RPC-over-RDMA and over plain TCP in a JVM of its own, for {@link
 * TwoJvmTest}: prints {@code rdma PORT tcp PORT} and serves until its standard input closes.
 */
public final class EchoServerMain {

    private EchoServerMain() {
    }

    public static void main(String[] args) throws Exception {
        RpcDispatcher dispatcher = new RpcDispatcher().register(EchoProgram.create());
        RpcRdmaSettings settings = RpcRdmaSettings.builder().binding(new EchoBinding()).inlineSize(4096).build();
        try (Rnic rnic = Rnic.builder().eventLoopThreads(1).build();
             RpcRdmaServer rdma = RpcRdmaServer.listen(rnic, new InetSocketAddress("127.0.0.1", 0), dispatcher, settings);
             RpcTcpServer tcp = RpcTcpServer.builder(dispatcher).bind(new InetSocketAddress("127.0.0.1", 0))) {
            System.out.println("rdma " + ((InetSocketAddress) rdma.localAddress()).getPort()
                    + " tcp " + ((InetSocketAddress) tcp.localAddress()).getPort());
            System.out.flush();
            while (System.in.read() >= 0) {
                // serve until the parent closes our standard input
            }
        }
    }
}
