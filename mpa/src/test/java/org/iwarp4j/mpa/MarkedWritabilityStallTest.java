package org.iwarp4j.mpa;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.bootstrap.Bootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.nio.NioSocketChannel;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * With markers the encoder frames ULPDUs only while its queue for the socket is short, and the
 * rest when the channel turns writable again ({@link MpaFrameEncoder#MARKED_QUEUE_LIMIT} past the
 * channel's low water mark). Over a real TCP connection whose reader stops, the framing stops and
 * resumes several times; the stream is still octet for octet the one framed at once, every marker
 * at its place counted from the start of the FPDU stream with the FPDUPTR it must carry (RFC 5044
 * §4.3, MPA-R-014), every CRC right.
 */
class MarkedWritabilityStallTest {

    /** About 10 MiB, many times what the encoder queues. */
    private static final int ULPDUS = 160;

    @Test
    void framingStopsAndResumesAcrossWritabilityStallsAndKeepsEveryMarkerInPlace() throws Exception {
        Random random = new Random(23);
        MarkedCopyPropertiesTest.ReferenceEncoder reference = new MarkedCopyPropertiesTest.ReferenceEncoder(true, true);
        ByteArrayOutputStream expected = new ByteArrayOutputStream();
        List<byte[]> ulpdus = new ArrayList<>();
        for (int i = 0; i < ULPDUS; i++) {
            // Lengths that move the FPDU starts around the 512-octet marker grid.
            byte[] ulpdu = new byte[MpaConstants.MAX_ULPDU - random.nextInt(1500)];
            random.nextBytes(ulpdu);
            ulpdus.add(ulpdu);
            expected.writeBytes(reference.fpdu(ulpdu));
        }
        byte[] wire = expected.toByteArray();
        AtomicInteger turnedWritable = new AtomicInteger();
        EventLoopGroup group = new MultiThreadIoEventLoopGroup(1, NioIoHandler.newFactory());
        try (ServerSocket server = new ServerSocket()) {
            server.setReceiveBufferSize(64 * 1024); // small socket buffers: the queue backs up soon
            server.bind(new InetSocketAddress("127.0.0.1", 0));
            Channel channel = new Bootstrap().group(group).channel(NioSocketChannel.class)
                    .option(ChannelOption.SO_SNDBUF, 64 * 1024)
                    .handler(new MpaFrameEncoder(true, true, false))
                    .connect(server.getLocalSocketAddress()).sync().channel();
            // In front of the encoder: it sees each turn to writable before the encoder frames (and
            // turns the channel unwritable again).
            channel.pipeline().addFirst(new ChannelInboundHandlerAdapter() {
                @Override
                public void channelWritabilityChanged(ChannelHandlerContext ctx) {
                    if (ctx.channel().isWritable()) {
                        turnedWritable.incrementAndGet();
                    }
                    ctx.fireChannelWritabilityChanged();
                }
            });
            try (Socket peer = server.accept()) {
                peer.setSoTimeout(20_000);
                int lowWaterMark = channel.config().getWriteBufferLowWaterMark();
                List<ChannelFuture> writes = new ArrayList<>();
                long[] queuedWhileStalled = new long[1];
                channel.eventLoop().submit(() -> {
                    for (int i = 0; i < ULPDUS; i++) {
                        byte[] ulpdu = ulpdus.get(i);
                        if (i % 2 == 0) { // as RDMAP sends: header octets and the payload
                            ByteBuf payload = ByteBufAllocator.DEFAULT.directBuffer(ulpdu.length - 28)
                                    .writeBytes(ulpdu, 28, ulpdu.length - 28);
                            writes.add(channel.write(OutboundUlpdu.of(Arrays.copyOf(ulpdu, 28), payload)));
                        } else {
                            writes.add(channel.write(ByteBufAllocator.DEFAULT.directBuffer(ulpdu.length).writeBytes(ulpdu)));
                        }
                    }
                    channel.flush();
                    // The peer reads nothing yet: the socket took what it could, the rest waits.
                    queuedWhileStalled[0] = channel.unsafe().outboundBuffer().totalPendingWriteBytes();
                }).get(20, TimeUnit.SECONDS);

                assertThat(channel.isWritable()).as("the queue backed up").isFalse();
                assertThat(queuedWhileStalled[0]).as("framed and queued, the rest held unframed")
                        .isGreaterThan(lowWaterMark)
                        .isLessThanOrEqualTo(lowWaterMark + MpaFrameEncoder.MARKED_QUEUE_LIMIT + 2L * 66_000);
                assertThat(writes.get(writes.size() - 1).isDone()).as("the last ULPDU is still held").isFalse();

                byte[] received = new byte[wire.length];
                new DataInputStream(peer.getInputStream()).readFully(received); // times out rather than hangs
                assertThat(received).isEqualTo(wire);
                for (ChannelFuture write : writes) {
                    assertThat(write.await(20, TimeUnit.SECONDS)).isTrue();
                    assertThat(write.isSuccess()).isTrue();
                }
                // 10 MiB through a queue of about 1 MiB: held ULPDUs were framed at several resumptions.
                assertThat(turnedWritable.get()).isGreaterThanOrEqualTo(2);
            } finally {
                channel.close().sync();
            }
        } finally {
            group.shutdownGracefully(0, 5, TimeUnit.SECONDS).sync();
        }
    }
}
