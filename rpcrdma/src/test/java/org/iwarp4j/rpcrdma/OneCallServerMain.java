package org.iwarp4j.rpcrdma;

import java.net.InetSocketAddress;
import org.iwarp4j.oncrpc.RpcDispatcher;
import org.iwarp4j.oncrpc.sample.EchoProgram;
import org.iwarp4j.rdmap.Rnic;
import org.iwarp4j.rpcrdma.sample.EchoBinding;

/**
 * The echo program over RPC-over-RDMA in a JVM of its own whose server serves one Call at a time
 * (a budget of one place, no kept data buffers), for {@link ServerCallsInServiceTest}: a place
 * that is never given back stops the server for good, which the parent sees as a Call that is
 * never answered. Run with a small {@code -XX:MaxDirectMemorySize} to see what a Read sink beyond
 * it does. Prints {@code rdma PORT} and serves until its standard input closes.
 */
public final class OneCallServerMain {

    private OneCallServerMain() {
    }

    public static void main(String[] args) throws Exception {
        RpcDispatcher dispatcher = new RpcDispatcher().register(EchoProgram.create());
        RpcRdmaSettings settings = RpcRdmaSettings.builder().binding(new EchoBinding()).serverLimits(1, 0).build();
        try (Rnic rnic = Rnic.builder().eventLoopThreads(1).build();
             RpcRdmaServer rdma = RpcRdmaServer.listen(rnic, new InetSocketAddress("127.0.0.1", 0), dispatcher, settings)) {
            System.out.println("rdma " + ((InetSocketAddress) rdma.localAddress()).getPort());
            System.out.flush();
            while (System.in.read() >= 0) {
                // serve until the parent closes our standard input
            }
        }
    }
}
