package org.iwarp4j.rdmap;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.EnumSet;
import java.util.concurrent.TimeUnit;
import org.iwarp4j.ddp.Access;
import org.iwarp4j.mpa.MpaSettings;

/**
 * Run by {@link TransportTest} in a child JVM: two RNICs with the default transport, one Send between
 * them; prints the transport each chose and the octets that arrived.
 */
public final class TransportFallbackMain {

    private TransportFallbackMain() {
    }

    public static void main(String[] args) throws Exception {
        System.out.println("asked for IO_URING, got " + Transport.orBest(Transport.IO_URING,
                warning -> System.out.println("warning: " + warning)));
        try {
            Rnic.builder().transport(Transport.IO_URING);
        } catch (IllegalArgumentException e) {
            System.out.println("builder: " + e.getMessage());
        }
        try (Rnic server = Rnic.builder().build(); Rnic client = Rnic.builder().build()) {
            System.out.println("server transport " + server.transport());
            System.out.println("client transport " + client.transport());
            ProtectionDomain serverPd = server.allocateProtectionDomain();
            ByteBuf serverMemory = Unpooled.directBuffer(64).writeZero(64);
            MemoryRegion target = serverPd.register(serverMemory, EnumSet.of(Access.LOCAL_WRITE));
            CompletionQueue serverCq = server.createCompletionQueue(4);
            QueuePair serverQp = server.createQueuePair(QueuePairSettings.builder(serverPd, serverCq).build());
            serverQp.postReceive(new ReceiveWorkRequest(1, target.sge(0, 64)));
            Listener listener = server.listen(new InetSocketAddress("127.0.0.1", 0), MpaSettings.builder().build(),
                    request -> request.accept(serverQp));

            ProtectionDomain pd = client.allocateProtectionDomain();
            ByteBuf memory = Unpooled.directBuffer(64).writeZero(64);
            memory.setCharSequence(0, "over the fallback", StandardCharsets.US_ASCII);
            MemoryRegion local = pd.register(memory, EnumSet.noneOf(Access.class));
            CompletionQueue cq = client.createCompletionQueue(4);
            QueuePair qp = client.createQueuePair(QueuePairSettings.builder(pd, cq).build());
            qp.connect(listener.localAddress()).get(10, TimeUnit.SECONDS);
            qp.postSend(SendWorkRequest.send(2, local.sge(0, 17)));
            System.out.println(cq.poll(10, TimeUnit.SECONDS));
            System.out.println(serverCq.poll(10, TimeUnit.SECONDS));
            System.out.println("received: " + serverMemory.toString(0, 17, StandardCharsets.US_ASCII));
            qp.close().get(10, TimeUnit.SECONDS);
            listener.close();
            local.close();
            target.close();
            memory.release();
            serverMemory.release();
        }
    }
}
