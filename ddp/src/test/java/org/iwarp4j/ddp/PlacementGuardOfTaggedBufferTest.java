package org.iwarp4j.ddp;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.util.EnumSet;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.iwarp4j.mpa.PlacementGuard;
import org.junit.jupiter.api.Test;

/**
 * {@link TaggedBuffer#placementGuard()}: MPA's direct placement enters it around each read into
 * the memory, and {@link StagTable#deregister} and {@link StagTable#invalidate} wait for it as for
 * the table's own placements (§8.3.1 #6: when they return, no placement into the buffer is running
 * or can start); once the buffer is invalid the guard refuses.
 */
class PlacementGuardOfTaggedBufferTest {

    @Test
    void deregisterWaitsForAnEnteredGuardAndTheGuardRefusesAfterwards() throws Exception {
        StagTable table = new StagTable(16);
        ByteBuf memory = Unpooled.directBuffer(64).writeZero(64);
        try {
            TaggedBuffer buffer = table.register(1, 0x1000, 64, EnumSet.of(Access.REMOTE_WRITE), memory);
            PlacementGuard guard = buffer.placementGuard();
            assertThat(guard.enter()).isTrue();
            AtomicBoolean deregistered = new AtomicBoolean();
            Thread closer = new Thread(() -> deregistered.set(table.deregister(buffer.stag())), "deregister");
            closer.start();
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (closer.getState() != Thread.State.WAITING && closer.isAlive()) {
                assertThat(System.nanoTime()).as("deregister blocked in time").isLessThan(deadline);
                Thread.onSpinWait();
            }
            assertThat(closer.isAlive()).as("deregister waits while the guard is held").isTrue();
            guard.exit();
            closer.join(TimeUnit.SECONDS.toMillis(30));
            assertThat(closer.isAlive()).isFalse();
            assertThat(deregistered.get()).isTrue();
            assertThat(guard.enter()).as("an invalid buffer's guard refuses").isFalse();
            assertThat(buffer.lock.isReadLocked()).as("a refusal holds nothing").isFalse();
        } finally {
            memory.release();
        }
    }
}
