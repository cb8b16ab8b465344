package org.iwarp4j.rdmap;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.EnumSet;
import java.util.concurrent.TimeUnit;
import org.iwarp4j.ddp.Access;
import org.iwarp4j.mpa.MpaSettings;
import org.junit.jupiter.api.Test;

/** The RNIC example of docs/verbs.md (register, connect, write, read, send), compiled and run; keep the two in step. */
class ReadmeRnicExampleTest {

    @Test
    void readmeExampleRuns() throws Exception {
        // --- docs/verbs.md example begins ---
        try (Rnic server = Rnic.builder().build(); Rnic client = Rnic.builder().build()) {
            // Server: a region the client may write and read, a queue pair, a listener.
            ProtectionDomain serverPd = server.allocateProtectionDomain();
            ByteBuf serverMemory = Unpooled.directBuffer(4096).writeZero(4096);
            MemoryRegion target = serverPd.register(serverMemory,
                    EnumSet.of(Access.LOCAL_WRITE, Access.REMOTE_WRITE, Access.REMOTE_READ));
            CompletionQueue serverCq = server.createCompletionQueue(64);
            QueuePair serverQp = server.createQueuePair(QueuePairSettings.builder(serverPd, serverCq).build());
            serverQp.postReceive(new ReceiveWorkRequest(1, target.sge(2048, 2048)));
            Listener listener = server.listen(new InetSocketAddress("127.0.0.1", 0), MpaSettings.builder().build(),
                    request -> request.accept(serverQp));

            // Client: its own memory, a queue pair, connect.
            ProtectionDomain pd = client.allocateProtectionDomain();
            ByteBuf memory = Unpooled.directBuffer(4096).writeZero(4096);
            memory.setCharSequence(0, "hello, iWARP", StandardCharsets.US_ASCII);
            MemoryRegion local = pd.register(memory, EnumSet.of(Access.LOCAL_WRITE));
            CompletionQueue cq = client.createCompletionQueue(64);
            QueuePair qp = client.createQueuePair(QueuePairSettings.builder(pd, cq).build());
            qp.connect(listener.localAddress()).get(10, TimeUnit.SECONDS);

            // RDMA Write 12 octets to the server's region (its STag and tagged offset came out of band).
            qp.postSend(SendWorkRequest.rdmaWrite(10, target.stag(), target.baseTaggedOffset(), local.sge(0, 12)));
            // RDMA Read them back into our memory at offset 100.
            qp.postSend(SendWorkRequest.rdmaRead(11, target.stag(), target.baseTaggedOffset(), local.sge(100, 12)));
            System.out.println(cq.poll(10, TimeUnit.SECONDS)); // RDMA_WRITE, SUCCESS
            System.out.println(cq.poll(10, TimeUnit.SECONDS)); // RDMA_READ, SUCCESS: octets 100..111 are filled
            // Send them into the server's posted receive. (Posted only now: a Send posted behind a Read
            // may leave before the Read's data arrives, RFC 5040 §5.5.)
            qp.postSend(SendWorkRequest.send(12, local.sge(100, 12)));
            System.out.println(cq.poll(10, TimeUnit.SECONDS)); // SEND, SUCCESS
            System.out.println(serverCq.poll(10, TimeUnit.SECONDS)); // RECEIVE, 12 octets
            System.out.println(memory.toString(100, 12, StandardCharsets.US_ASCII)); // hello, iWARP
            // --- docs/verbs.md example ends ---

            assertThat(memory.toString(100, 12, StandardCharsets.US_ASCII)).isEqualTo("hello, iWARP");
            assertThat(serverMemory.toString(2048, 12, StandardCharsets.US_ASCII)).isEqualTo("hello, iWARP");
            assertThat(serverMemory.toString(0, 12, StandardCharsets.US_ASCII)).isEqualTo("hello, iWARP");
            // Cleanup, as in docs/verbs.md: close, deregister, and release the memory (it stays yours).
            qp.close().get(10, TimeUnit.SECONDS);
            serverQp.closeFuture().get(10, TimeUnit.SECONDS);
            listener.close();
            local.close();
            target.close();
            memory.release();
            serverMemory.release();
        }
    }
}
