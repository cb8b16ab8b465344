package org.iwarp4j.rdmap.fuzz;

import static org.assertj.core.api.Assertions.assertThat;

import com.code_intelligence.jazzer.junit.FuzzTest;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.UnpooledByteBufAllocator;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.embedded.EmbeddedChannel;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import org.iwarp4j.ddp.Access;
import org.iwarp4j.mpa.ConnectRequestHandler;
import org.iwarp4j.mpa.MpaSettings;
import org.iwarp4j.mpa.MpaStartupHandler;
import org.iwarp4j.mpa.OutboundUlpdu;
import org.iwarp4j.rdmap.CompletionQueue;
import org.iwarp4j.rdmap.FuzzAccess;
import org.iwarp4j.rdmap.MemoryRegion;
import org.iwarp4j.rdmap.ProtectionDomain;
import org.iwarp4j.rdmap.QueuePair;
import org.iwarp4j.rdmap.QueuePairSettings;
import org.iwarp4j.rdmap.QueuePairState;
import org.iwarp4j.rdmap.ReceiveWorkRequest;
import org.iwarp4j.rdmap.Rnic;
import org.iwarp4j.testkit.FuzzInput;

/**
 * Jazzer target for the RDMAP receive path end to end (RFC 5040 §5-§7 over RFC 5041): a queue
 * pair's engine, after a real MPA exchange in an {@link EmbeddedChannel} (our Responder; the MPA
 * frame codecs are then taken out so that the input's ULPDUs reach the engine as MPA would deliver
 * them). The input is a sequence of ULPDUs, each a two-octet length and its octets. The queue pair
 * has two receives posted and a 512-octet region registered for Remote Write, Remote Read and Local
 * Write. Seeds ({@code capture-*}, cut by {@code scripts/fuzz-seeds.py} from {@code testdata/captures/}):
 * ULPDU sequences of both directions of the Linux siw rping, perftest and NFS-over-RDMA captures.
 *
 * <p>Properties: no exception ever leaves the engine (every error becomes a Terminate, RFC 5040
 * §7); at most one Terminate is sent (RFC 5040 §5.4, §6.2.1); after the connection ends the queue
 * pair is in ERROR; nothing allocated for the input, including the engine's own buffers, is left
 * unreleased.
 */
class QueuePairReceiveFuzzTarget {

    private static final Rnic RNIC = Rnic.builder().eventLoopThreads(1).name("fuzz").build();
    private static final ProtectionDomain PD = RNIC.allocateProtectionDomain();
    private static final int TERMINATE_OPCODE = 7;

    /** Keeps what reaches the end of the pipeline: anything here escaped the engine. */
    private static final class Tail extends ChannelInboundHandlerAdapter {
        final List<Throwable> errors = new ArrayList<>();

        @Override
        public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
            errors.add(cause);
        }

        @Override
        public void userEventTriggered(ChannelHandlerContext ctx, Object evt) {
        }
    }

    @FuzzTest(maxDuration = "10s")
    void fuzz(byte[] input) {
        UnpooledByteBufAllocator alloc = FuzzInput.countingAllocator();
        CompletionQueue cq = RNIC.createCompletionQueue(64);
        QueuePair qp = RNIC.createQueuePair(QueuePairSettings.builder(PD, cq).build());
        ByteBuf memory = alloc.directBuffer(512).writeZero(512);
        MemoryRegion region = PD.register(memory,
                EnumSet.of(Access.LOCAL_WRITE, Access.REMOTE_WRITE, Access.REMOTE_READ));
        Tail tail = new Tail();
        MpaStartupHandler startup = MpaStartupHandler.responder(MpaSettings.builder().build(),
                ConnectRequestHandler.ACCEPT_ALL);
        EmbeddedChannel channel = FuzzInput.channel(alloc, startup, FuzzAccess.engine(qp), tail);
        int terminates = 0;
        try {
            channel.writeInbound(request(alloc));
            assertThat(startup.startup()).isCompleted();
            channel.pipeline().remove(MpaStartupHandler.FRAME_DECODER_NAME);
            channel.pipeline().remove(MpaStartupHandler.FRAME_ENCODER_NAME);
            terminates += drainOutbound(channel, true);
            assertThat(qp.state()).isEqualTo(QueuePairState.RTS);
            qp.postReceive(new ReceiveWorkRequest(1, region.sge(0, 256)), new ReceiveWorkRequest(2, region.sge(256, 64)));
            channel.runPendingTasks();
            for (int at = 0; at + 2 <= input.length && channel.isOpen(); ) {
                int n = Math.min(((input[at] & 0xFF) << 8) | (input[at + 1] & 0xFF), input.length - at - 2);
                channel.writeInbound(alloc.buffer(n).writeBytes(input, at + 2, n));
                at += 2 + n;
                channel.runPendingTasks();
                terminates += drainOutbound(channel, false);
            }
            channel.close();
            channel.runPendingTasks();
            terminates += drainOutbound(channel, false);
            assertThat(channel.finishAndReleaseAll()).as("nothing passed the engine").isFalse();
            for (Throwable t : tail.errors) {
                throw new AssertionError("an exception left the queue pair's engine", t);
            }
            assertThat(terminates).as("Terminates sent").isLessThanOrEqualTo(1);
            assertThat(qp.state()).isEqualTo(QueuePairState.ERROR);
            while (cq.poll() != null) {
                // completions hold no buffers
            }
        } finally {
            channel.finishAndReleaseAll();
            region.close();
            memory.release();
        }
        FuzzInput.assertNothingHeld(alloc);
    }

    /** A Request frame, as a default MPA Initiator sends it. */
    private static ByteBuf request(UnpooledByteBufAllocator alloc) {
        EmbeddedChannel initiator = FuzzInput.channel(alloc, MpaStartupHandler.initiator(MpaSettings.builder().build()));
        ByteBuf frame = initiator.readOutbound();
        initiator.finishAndReleaseAll();
        return frame;
    }

    /** Releases every ULPDU sent so far (the Reply frame first, if {@code startup}); returns the Terminates among them. */
    private static int drainOutbound(EmbeddedChannel channel, boolean startup) {
        int terminates = 0;
        boolean first = startup;
        for (Object o; (o = channel.readOutbound()) != null; ) {
            // The Transmitter writes its segments as OutboundUlpdus (header and payload apart).
            ByteBuf ulpdu = o instanceof OutboundUlpdu ? toByteBuf((OutboundUlpdu) o) : (ByteBuf) o;
            try {
                if (!first && ulpdu.readableBytes() >= 2 && (ulpdu.getByte(0) & 0x80) == 0
                        && (ulpdu.getByte(1) & 0x0F) == TERMINATE_OPCODE) {
                    terminates++;
                }
                first = false;
            } finally {
                ulpdu.release();
            }
        }
        return terminates;
    }

    private static ByteBuf toByteBuf(OutboundUlpdu ulpdu) {
        try {
            return ulpdu.toByteBuf(UnpooledByteBufAllocator.DEFAULT);
        } finally {
            ulpdu.release();
        }
    }
}
