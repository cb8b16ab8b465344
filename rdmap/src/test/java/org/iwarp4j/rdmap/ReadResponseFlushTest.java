package org.iwarp4j.rdmap;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.UnpooledByteBufAllocator;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelOutboundHandlerAdapter;
import io.netty.channel.embedded.EmbeddedChannel;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import org.iwarp4j.ddp.Access;
import org.iwarp4j.mpa.ConnectRequestHandler;
import org.iwarp4j.mpa.MpaSettings;
import org.iwarp4j.mpa.MpaStartupHandler;
import org.iwarp4j.mpa.OutboundUlpdu;
import org.iwarp4j.testkit.FuzzInput;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;

/**
 * Read Requests that arrive in one socket read are answered in one flush (one gathering write),
 * not one flush per Read Response (RFC 5040 §5.2.1 says what each response is; when it goes out
 * is ours). The engine runs in an {@link EmbeddedChannel} after a real MPA exchange (our
 * Responder), the MPA frame codecs taken out, so the ULPDUs on the wire are checked octet by octet.
 */
class ReadResponseFlushTest {

    private static final Rnic RNIC = Rnic.builder().eventLoopThreads(1).name("read-flush").build();

    @AfterAll
    static void closeRnic() {
        RNIC.close();
    }

    /** Counts the flushes that leave the engine. */
    private static final class FlushCounter extends ChannelOutboundHandlerAdapter {
        int flushes;

        @Override
        public void flush(ChannelHandlerContext ctx) {
            flushes++;
            ctx.flush();
        }
    }

    @Test
    void fourReadRequestsInOneReadAreAnsweredInOneFlush() {
        UnpooledByteBufAllocator alloc = FuzzInput.countingAllocator();
        ProtectionDomain pd = RNIC.allocateProtectionDomain();
        CompletionQueue cq = RNIC.createCompletionQueue(16);
        QueuePair qp = RNIC.createQueuePair(QueuePairSettings.builder(pd, cq).build());
        ByteBuf memory = alloc.directBuffer(256);
        for (int i = 0; i < 256; i++) {
            memory.writeByte(i);
        }
        MemoryRegion region = pd.register(memory, EnumSet.of(Access.LOCAL_WRITE, Access.REMOTE_READ));
        FlushCounter counter = new FlushCounter();
        MpaStartupHandler startup = MpaStartupHandler.responder(MpaSettings.builder().build(),
                ConnectRequestHandler.ACCEPT_ALL);
        EmbeddedChannel channel = FuzzInput.channel(alloc, counter, startup, FuzzAccess.engine(qp));
        List<ByteBuf> sent = new ArrayList<>();
        try {
            channel.writeInbound(request(alloc));
            assertThat(startup.startup()).isCompleted();
            channel.pipeline().remove(MpaStartupHandler.FRAME_DECODER_NAME);
            channel.pipeline().remove(MpaStartupHandler.FRAME_ENCODER_NAME);
            channel.runPendingTasks();
            drain(channel, sent);
            sent.forEach(ByteBuf::release);
            sent.clear();
            assertThat(qp.state()).isEqualTo(QueuePairState.RTS);

            int sinkStag = 0x00ABCD01;
            ByteBuf[] requests = new ByteBuf[4];
            for (int k = 0; k < 4; k++) {
                requests[k] = readRequest(alloc, k + 1, sinkStag, 0x1000L * (k + 1), 64, region.stag(),
                        region.baseTaggedOffset() + 64L * k);
            }
            int flushesBefore = counter.flushes;
            // One read's worth of ULPDUs: channelRead for each, then channelReadComplete and the loop's tasks.
            channel.writeInbound((Object[]) requests);
            drain(channel, sent);

            assertThat(counter.flushes - flushesBefore).as("flushes for the four Read Responses").isEqualTo(1);
            assertThat(sent).hasSize(4);
            for (int k = 0; k < 4; k++) {
                ByteBuf r = sent.get(k);
                assertThat(r.readableBytes()).isEqualTo(14 + 64);
                assertThat((int) r.getUnsignedByte(0)).as("DDP control: tagged, last, DV 1").isEqualTo(0xC1);
                assertThat((int) r.getUnsignedByte(1)).as("RDMAP: RV 1, Read Response").isEqualTo(0x42);
                assertThat(r.getInt(2)).as("sink STag").isEqualTo(sinkStag);
                assertThat(r.getLong(6)).as("sink tagged offset").isEqualTo(0x1000L * (k + 1));
                for (int i = 0; i < 64; i++) {
                    assertThat((int) r.getUnsignedByte(14 + i)).isEqualTo((64 * k + i) & 0xFF);
                }
            }
        } finally {
            sent.forEach(ByteBuf::release);
            channel.finishAndReleaseAll();
            region.close();
            memory.release();
        }
    }

    /** An RDMA Read Request ULPDU (RFC 5040 §4.4, on DDP's untagged QN 1, RFC 5041 §4.3), octet by octet. */
    private static ByteBuf readRequest(UnpooledByteBufAllocator alloc, int msn, int sinkStag, long sinkTo, int size,
                                       int sourceStag, long sourceTo) {
        ByteBuf b = alloc.buffer(46);
        b.writeByte(0x41); // untagged, last, DV 1
        b.writeByte(0x41); // RV 1, opcode 1: Read Request
        b.writeInt(0); // RsvdULP
        b.writeInt(1); // QN 1
        b.writeInt(msn);
        b.writeInt(0); // MO
        b.writeInt(sinkStag);
        b.writeLong(sinkTo);
        b.writeInt(size);
        b.writeInt(sourceStag);
        b.writeLong(sourceTo);
        return b;
    }

    /** A Request frame, as a default MPA Initiator sends it. */
    static ByteBuf request(UnpooledByteBufAllocator alloc) {
        EmbeddedChannel initiator = FuzzInput.channel(alloc, MpaStartupHandler.initiator(MpaSettings.builder().build()));
        ByteBuf frame = initiator.readOutbound();
        initiator.finishAndReleaseAll();
        return frame;
    }

    /** Everything written so far, each ULPDU as one buffer (the Transmitter writes header and payload apart). */
    private static void drain(EmbeddedChannel channel, List<ByteBuf> into) {
        for (Object o; (o = channel.readOutbound()) != null; ) {
            if (o instanceof OutboundUlpdu) {
                OutboundUlpdu ulpdu = (OutboundUlpdu) o;
                try {
                    into.add(ulpdu.toByteBuf(UnpooledByteBufAllocator.DEFAULT));
                } finally {
                    ulpdu.release();
                }
            } else {
                into.add((ByteBuf) o);
            }
        }
    }
}
