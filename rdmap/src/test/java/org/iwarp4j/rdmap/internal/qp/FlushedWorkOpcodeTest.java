package org.iwarp4j.rdmap.internal.qp;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import java.lang.reflect.Proxy;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import org.iwarp4j.ddp.Access;
import org.iwarp4j.rdmap.MemoryRegion;
import org.iwarp4j.rdmap.ProtectionDomain;
import org.iwarp4j.rdmap.QueuePairSettings;
import org.iwarp4j.rdmap.Rnic;
import org.iwarp4j.rdmap.SendWorkRequest;
import org.iwarp4j.rdmap.WorkCompletionOpcode;
import org.iwarp4j.rdmap.WorkCompletionStatus;
import org.junit.jupiter.api.Test;

/**
 * Work that reaches a queue pair after it failed (still in its work queue when it did, or posted
 * in between) is flushed (RFC 5040 §6.2.1) with the opcode of what was posted, as work flushed
 * from the send queue itself is: a user that counts its Reads and Writes by opcode must find
 * them all.
 */
class FlushedWorkOpcodeTest {

    @Test
    void workFlushedFromTheWorkQueueCompletesWithItsOwnOpcode() {
        ByteBuf memory = ByteBufAllocator.DEFAULT.directBuffer(16).writeZero(16);
        try (Rnic rnic = Rnic.builder().eventLoopThreads(1).build()) {
            ProtectionDomain pd = rnic.allocateProtectionDomain();
            MemoryRegion mr = pd.register(memory, EnumSet.of(Access.LOCAL_WRITE));
            QueuePairSettings settings = QueuePairSettings.builder(pd, rnic.createCompletionQueue(8)).build();
            List<String> completed = new ArrayList<>();
            QueuePairPort port = (QueuePairPort) Proxy.newProxyInstance(getClass().getClassLoader(),
                    new Class<?>[] {QueuePairPort.class}, (proxy, method, args) -> switch (method.getName()) {
                        case "settings" -> settings;
                        case "terminateReason" -> null;
                        case "complete" -> {
                            completed.add(args[2] + " " + args[3] + " " + args[4]);
                            yield true; // delivered: the completion queue had room
                        }
                        default -> throw new UnsupportedOperationException(method.getName());
                    });
            WorkCommand.Handler flushing = new Completions(port).flushing();

            flushing.postSend(SendWorkRequest.rdmaWrite(1, 0x100, 0, mr.sge(0, 16)));
            flushing.postSend(SendWorkRequest.rdmaRead(2, 0x100, 0, mr.sge(0, 16)));
            flushing.postSend(SendWorkRequest.sendWithInvalidate(3, 0x200, mr.sge(0, 16)));
            flushing.postSend(SendWorkRequest.localInvalidate(4, mr.stag()));

            assertThat(completed).containsExactly(
                    "1 " + WorkCompletionOpcode.RDMA_WRITE + " " + WorkCompletionStatus.FLUSHED,
                    "2 " + WorkCompletionOpcode.RDMA_READ + " " + WorkCompletionStatus.FLUSHED,
                    "3 " + WorkCompletionOpcode.SEND + " " + WorkCompletionStatus.FLUSHED,
                    "4 " + WorkCompletionOpcode.LOCAL_INVALIDATE + " " + WorkCompletionStatus.FLUSHED);
        } finally {
            memory.release();
        }
    }
}
