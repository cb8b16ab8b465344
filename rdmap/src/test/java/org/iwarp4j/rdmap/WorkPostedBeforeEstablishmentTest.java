package org.iwarp4j.rdmap;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.UnpooledByteBufAllocator;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelOutboundHandlerAdapter;
import io.netty.channel.ChannelPromise;
import io.netty.channel.embedded.EmbeddedChannel;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import org.iwarp4j.ddp.Access;
import org.iwarp4j.mpa.ConnectRequestHandler;
import org.iwarp4j.mpa.MpaSettings;
import org.iwarp4j.mpa.MpaStartupHandler;
import org.iwarp4j.testkit.FuzzInput;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;

/**
 * A receive posted before the connection is up ("work posted before the connection is up waits
 * for it", {@link QueuePair}) is in DDP's queue when establishment completes, not one event loop
 * task later: the peer may send as soon as it is established, and an event loop can run the IO
 * of its next turn before a task queued in an earlier one (Netty bounds each turn's task time).
 * A Send read before that task ran found no buffer: a Terminate, DDP untagged buffer error
 * "Invalid MSN - no buffer available" (RFC 5041 §7.2), and the receive flushed; and with direct
 * placement its payload was not placed (first seen as {@code DirectPlacementTest} finding no
 * placed FPDU on io_uring under load).
 *
 * <p>The engine runs in an {@link EmbeddedChannel}, whose tasks run only when the test says so
 * (and when a write reaches it, which {@link WriteHolder} keeps from happening): the MPA Request
 * and the first Send are read with no task run in between.
 */
class WorkPostedBeforeEstablishmentTest {

    private static final Rnic RNIC = Rnic.builder().eventLoopThreads(1).name("posted-before").build();

    @AfterAll
    static void closeRnic() {
        RNIC.close();
    }

    /** Holds every write (the MPA Reply) before EmbeddedChannel's own write, which would run its tasks. */
    private static final class WriteHolder extends ChannelOutboundHandlerAdapter {
        private final List<Object> written;

        WriteHolder(List<Object> written) {
            this.written = written;
        }

        @Override
        public void write(ChannelHandlerContext ctx, Object msg, ChannelPromise promise) {
            written.add(msg);
            promise.setSuccess();
        }

        @Override
        public void flush(ChannelHandlerContext ctx) {
        }
    }

    @Test
    void aReceivePostedBeforeTheConnectionTakesTheFirstSendReadBeforeAnyTaskRan() {
        UnpooledByteBufAllocator alloc = FuzzInput.countingAllocator();
        ProtectionDomain pd = RNIC.allocateProtectionDomain();
        CompletionQueue cq = RNIC.createCompletionQueue(4);
        QueuePair qp = RNIC.createQueuePair(QueuePairSettings.builder(pd, cq).build());
        ByteBuf memory = alloc.directBuffer(64).writeZero(64);
        MemoryRegion region = pd.register(memory, EnumSet.of(Access.LOCAL_WRITE));
        qp.postReceive(new ReceiveWorkRequest(7, region.sge(0, 64)));
        MpaStartupHandler startup = MpaStartupHandler.responder(MpaSettings.builder().build(),
                ConnectRequestHandler.ACCEPT_ALL);
        List<Object> written = new ArrayList<>();
        EmbeddedChannel channel = FuzzInput.channel(alloc, new WriteHolder(written), startup, FuzzAccess.engine(qp));
        try {
            channel.pipeline().fireChannelRead(ReadResponseFlushTest.request(alloc));
            assertThat(startup.startup()).isCompleted();
            assertThat(written).as("the MPA Reply").hasSize(1);
            assertThat(qp.state()).isEqualTo(QueuePairState.RTS);
            channel.pipeline().remove(MpaStartupHandler.FRAME_DECODER_NAME);
            channel.pipeline().remove(MpaStartupHandler.FRAME_ENCODER_NAME);

            channel.pipeline().fireChannelRead(send(alloc, 1, 16, 0x5A));
            channel.pipeline().fireChannelReadComplete();

            WorkCompletion c = cq.poll();
            assertThat(c).as("the Send's completion, before any event loop task ran").isNotNull();
            assertThat(c.workRequestId()).isEqualTo(7);
            assertThat(c.opcode()).isEqualTo(WorkCompletionOpcode.RECEIVE);
            assertThat(c.status()).as(c.toString()).isEqualTo(WorkCompletionStatus.SUCCESS);
            assertThat(c.byteLength()).isEqualTo(16);
            for (int i = 0; i < 16; i++) {
                assertThat(memory.getByte(i)).as("octet %d", i).isEqualTo((byte) 0x5A);
            }
            assertThat(qp.terminateReason()).as("no Terminate").isNull();
            assertThat(qp.state()).isEqualTo(QueuePairState.RTS);
        } finally {
            written.forEach(io.netty.util.ReferenceCountUtil::release);
            channel.finishAndReleaseAll();
            region.close();
            memory.release();
        }
    }

    /** A Send ULPDU (RFC 5040 §4.3, DDP untagged QN 0, RFC 5041 §4.3) of {@code length} octets of {@code fill}. */
    private static ByteBuf send(UnpooledByteBufAllocator alloc, int msn, int length, int fill) {
        ByteBuf b = alloc.buffer(18 + length);
        b.writeByte(0x41); // untagged, last, DV 1
        b.writeByte(0x43); // RV 1, opcode 3: Send
        b.writeInt(0); // RsvdULP
        b.writeInt(0); // QN 0
        b.writeInt(msn);
        b.writeInt(0); // MO
        for (int i = 0; i < length; i++) {
            b.writeByte(fill);
        }
        return b;
    }
}
