package org.iwarp4j.tools.bench.internal;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import java.util.concurrent.Semaphore;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The plain-TCP comparison posts as the RDMA bench client does: everything the window allows goes
 * to the event loop in one task, flushed once per {@link TcpBenchClient.Connection#FLUSH_OCTETS}
 * queued (so small messages get one flush per window), and the loop gives window slots back
 * (waking the posting thread) once half the depth is done or nothing is outstanding, not per
 * message.
 */
class TcpBenchClientPostingTest {

    private static final int DEPTH = 8;
    private static final int SIZE = 16;

    private final Semaphore freed = new Semaphore(0);
    private final SocketEnd counter = new SocketEnd(true);
    private ByteBuf pattern;
    private EmbeddedChannel channel;

    @BeforeEach
    void pattern() {
        pattern = Unpooled.buffer(SIZE);
        for (int i = 0; i < SIZE; i++) {
            pattern.writeByte(0xa0 + i);
        }
    }

    @AfterEach
    void release() {
        channel.finishAndReleaseAll();
        pattern.release();
    }

    @Test
    void messagesTheWindowAllowsGoOutInOneTaskWithOneFlush() {
        TcpBenchClient.Connection c = connection(TcpMode.SINK);
        int allowed = c.window.drainPermits();
        assertThat(allowed).isEqualTo(DEPTH);

        c.post(allowed, pattern);
        assertThat(counter.writes).as("nothing is written by the posting thread itself").isZero();
        channel.runPendingTasks();

        assertThat(counter.writes).as("writes").isEqualTo(DEPTH);
        assertThat(counter.flushes).as("one flush for the whole window").isEqualTo(1);
        for (int i = 0; i < DEPTH; i++) {
            ByteBuf message = channel.readOutbound();
            assertThat(message).as("message " + i).isEqualTo(pattern);
            message.release();
        }
        assertThat((Object) channel.readOutbound()).isNull();
        assertThat(c.window.availablePermits()).as("every slot is back once written").isEqualTo(DEPTH);
        assertThat(freed.availablePermits()).as("wake-ups: one per half depth, not one per message").isEqualTo(2);
    }

    @Test
    void largeMessagesAreFlushedEveryFlushOctetsNotOnceBehindTheWholeWindow() {
        int half = TcpBenchClient.Connection.FLUSH_OCTETS / 2;
        ByteBuf large = Unpooled.buffer(half).writeZero(half);
        try {
            TcpBenchClient.Connection c = connection(TcpMode.SINK, half);
            c.window.acquireUninterruptibly(5);
            c.post(5, large);
            channel.runPendingTasks();

            assertThat(counter.writes).isEqualTo(5);
            assertThat(counter.flushOffsets)
                    .as("a flush after every second message, and one for the last")
                    .containsExactly(2, 4, 5);
            assertThat(c.window.availablePermits()).isEqualTo(DEPTH);
        } finally {
            channel.releaseOutbound();
            large.release();
        }
    }

    @Test
    void readRequestsOfABatchGoInOneBufferAndSlotsComeBackPerHalfDepth() {
        TcpBenchClient.Connection c = connection(TcpMode.READ);
        c.post(c.window.drainPermits(), pattern);
        channel.runPendingTasks();

        assertThat(counter.writes).as("one buffer of requests").isEqualTo(1);
        assertThat(counter.flushes).isEqualTo(1);
        ByteBuf requests = channel.readOutbound();
        assertThat(requests.readableBytes()).isEqualTo(4 * DEPTH);
        for (int i = 0; i < DEPTH; i++) {
            assertThat(requests.readInt()).as("request " + i + " asks for one message").isEqualTo(SIZE);
        }
        requests.release();

        channel.writeInbound(Unpooled.buffer().writeZero(3 * SIZE + SIZE / 2));
        assertThat(c.window.availablePermits()).as("3.5 answers of 8: below half the depth").isZero();
        assertThat(freed.availablePermits()).isZero();
        channel.writeInbound(Unpooled.buffer().writeZero(SIZE / 2));
        assertThat(c.window.availablePermits()).as("4 answers: half the depth back at once").isEqualTo(DEPTH / 2);
        assertThat(freed.availablePermits()).isEqualTo(1);
        channel.writeInbound(Unpooled.buffer().writeZero(4 * SIZE));
        assertThat(c.window.availablePermits()).isEqualTo(DEPTH);
        assertThat(freed.availablePermits()).isEqualTo(2);
    }

    @Test
    void aBatchSmallerThanHalfTheDepthComesBackWhenItIsDone() {
        TcpBenchClient.Connection c = connection(TcpMode.SINK);
        c.window.acquireUninterruptibly(3);
        c.post(3, pattern);
        channel.runPendingTasks();

        assertThat(counter.writes).isEqualTo(3);
        assertThat(counter.flushes).isEqualTo(1);
        assertThat(c.window.availablePermits()).as("nothing outstanding: all given back").isEqualTo(DEPTH);
        assertThat(freed.availablePermits()).isEqualTo(1);
        channel.releaseOutbound();
    }

    private TcpBenchClient.Connection connection(TcpMode mode) {
        return connection(mode, SIZE);
    }

    private TcpBenchClient.Connection connection(TcpMode mode, int size) {
        TcpBenchClient.Connection c = new TcpBenchClient.Connection(mode, size, DEPTH, null, freed);
        channel = new EmbeddedChannel(counter, c);
        c.channel = channel;
        return c;
    }
}
