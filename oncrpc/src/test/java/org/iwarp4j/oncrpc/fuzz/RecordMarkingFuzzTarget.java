package org.iwarp4j.oncrpc.fuzz;

import static org.assertj.core.api.Assertions.assertThat;

import com.code_intelligence.jazzer.junit.FuzzTest;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.UnpooledByteBufAllocator;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.TooLongFrameException;
import java.io.ByteArrayOutputStream;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.iwarp4j.oncrpc.RecordMarkingDecoder;
import org.iwarp4j.testkit.FuzzInput;

/**
 * Jazzer target for ONC RPC record marking over TCP (RFC 5531 §11, {@link RecordMarkingDecoder}).
 * Input layout: octet 0 = bits 0-5 chunking seed, bits 6-7 the record limit (1 MiB, 64, 0 or 4096
 * octets), then the TCP stream. Seeds: the calls of the Linux NFS-over-RDMA capture (sent there without record marks), record-marked
 * as one record each and in two fragments each,
 * a record in three fragments (one empty), a record over a 64-octet limit, and the RFC's NULL call.
 *
 * <p>Properties: the decoder agrees with a plain reading of the RFC (records are the fragments up
 * to the one with the last-fragment bit, in order), whatever the chunking; the only exception is
 * the {@link TooLongFrameException} it documents, raised once, for exactly the first record whose
 * announced fragments pass the limit, and the connection is then closed; every record and every
 * octet buffered is released.
 */
class RecordMarkingFuzzTarget {

    private static final int[] LIMITS = {1 << 20, 64, 0, 4096};

    @FuzzTest(maxDuration = "10s")
    void fuzz(byte[] input) {
        if (input.length < 1) {
            return;
        }
        int limit = LIMITS[(input[0] >> 6) & 3];
        UnpooledByteBufAllocator alloc = FuzzInput.countingAllocator();
        List<byte[]> records = new ArrayList<>();
        List<Throwable> errors = new ArrayList<>();
        EmbeddedChannel channel = FuzzInput.channel(alloc, new RecordMarkingDecoder(limit),
                new ChannelInboundHandlerAdapter() {
                    @Override
                    public void channelRead(ChannelHandlerContext ctx, Object msg) {
                        ByteBuf record = (ByteBuf) msg;
                        records.add(ByteBufUtil.getBytes(record));
                        record.release();
                    }

                    @Override
                    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
                        errors.add(cause);
                    }
                });
        FuzzInput.feed(channel, input, 1, input[0] & 0x3F);
        boolean closedByDecoder = !channel.isOpen();
        channel.close();
        channel.finishAndReleaseAll();
        FuzzInput.assertNothingHeld(alloc);

        Expected expected = expected(input, limit);
        for (Throwable t : errors) {
            if (!(t instanceof TooLongFrameException)) {
                throw new AssertionError("undocumented exception from RecordMarkingDecoder", t);
            }
        }
        assertThat(errors).as("a record over the limit").hasSize(expected.tooLong ? 1 : 0);
        assertThat(closedByDecoder).isEqualTo(expected.tooLong);
        assertThat(records).hasSize(expected.records.size());
        for (int i = 0; i < records.size(); i++) {
            assertThat(Arrays.equals(records.get(i), expected.records.get(i))).as("record %d", i).isTrue();
        }
    }

    private record Expected(List<byte[]> records, boolean tooLong) {
    }

    /** RFC 5531 §11 read literally, on the whole stream at once. */
    private static Expected expected(byte[] input, int limit) {
        List<byte[]> records = new ArrayList<>();
        ByteArrayOutputStream record = new ByteArrayOutputStream();
        int at = 1;
        while (input.length - at >= 4) {
            int mark = (input[at] & 0xFF) << 24 | (input[at + 1] & 0xFF) << 16 | (input[at + 2] & 0xFF) << 8
                    | input[at + 3] & 0xFF;
            long length = mark & 0x7FFF_FFFFL;
            if (record.size() + length > limit) {
                return new Expected(records, true);
            }
            if (input.length - at - 4 < length) {
                break;
            }
            record.write(input, at + 4, (int) length);
            at += 4 + (int) length;
            if (mark < 0) {
                records.add(record.toByteArray());
                record.reset();
            }
        }
        return new Expected(records, false);
    }
}
