package org.iwarp4j.rdmap.internal.qp;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.reflect.Proxy;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.iwarp4j.rdmap.QueuePairSettings;
import org.iwarp4j.rdmap.Rnic;
import org.iwarp4j.rdmap.SendWorkRequest;
import org.iwarp4j.rdmap.WorkCompletionStatus;
import org.junit.jupiter.api.Test;

/**
 * {@link WorkQueue#flushUnbound}: a queue pair closed before any connection flushes what was
 * posted, and also what a post that passed its state check before the close queues only after the
 * flush (the interleaving QueuePairLifeCycleTest's stress provokes): no request is left queued
 * with no engine to run it (RFC 5040 §6.2.1, RDMAP-R-035).
 */
class WorkQueueUnboundFlushTest {

    @Test
    void aCommandQueuedAfterTheFlushOfAnUnboundQueueIsFlushedAsItIsQueued() {
        try (Rnic rnic = Rnic.builder().eventLoopThreads(1).build()) {
            QueuePairSettings settings = QueuePairSettings.builder(rnic.allocateProtectionDomain(),
                    rnic.createCompletionQueue(8)).build();
            List<String> completed = new CopyOnWriteArrayList<>();
            QueuePairPort port = (QueuePairPort) Proxy.newProxyInstance(getClass().getClassLoader(),
                    new Class<?>[] {QueuePairPort.class}, (proxy, method, args) -> switch (method.getName()) {
                        case "settings" -> settings;
                        case "terminateReason" -> null;
                        case "complete" -> {
                            completed.add(args[2] + " " + args[4]);
                            yield true; // delivered: the completion queue had room
                        }
                        default -> throw new UnsupportedOperationException(method.getName());
                    });
            WorkQueue queue = new WorkQueue();
            queue.enqueue(new WorkCommand.PostSend(SendWorkRequest.localInvalidate(1, 0x100)));

            queue.flushUnbound(port);
            assertThat(completed).containsExactly("1 " + WorkCompletionStatus.FLUSHED);

            queue.enqueueAll(List.of(new WorkCommand.PostSend(SendWorkRequest.localInvalidate(2, 0x100))));
            queue.enqueue(new WorkCommand.CloseGracefully());
            assertThat(completed).containsExactly("1 " + WorkCompletionStatus.FLUSHED,
                    "2 " + WorkCompletionStatus.FLUSHED);
            assertThat(queue.poll()).as("nothing left queued").isNull();
        }
    }
}
