package org.iwarp4j.oncrpc.fuzz;

import static org.assertj.core.api.Assertions.assertThat;

import com.code_intelligence.jazzer.junit.FuzzTest;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.UnpooledByteBufAllocator;
import java.util.List;
import org.iwarp4j.oncrpc.XdrDecoder;
import org.iwarp4j.oncrpc.XdrException;
import org.iwarp4j.testkit.FuzzInput;

/**
 * Jazzer target for {@link XdrDecoder} (RFC 4506), the bounded reader every ONC RPC and NFS
 * decoder is built on. Input layout: octet 0 = number of reads (low 4 bits), then one octet per
 * read choosing it (low 4 bits: int, unsigned int, bool, hyper, fixed opaque of the high 4 bits'
 * length, opaque, opaque as a buffer, string, int array, array of int, optional hyper, DDP-eligible
 * opaque, skip), then the XDR stream; the last 4 octets double as a reduced data item (RFC 8166
 * §3.4.6) for the DDP-eligible read. Seeds: hand-made streams for every read.
 *
 * <p>Properties: the only exception is {@link XdrException}; a read never moves past the end of the
 * stream; every buffer a read returns is the caller's to release, and after releasing them
 * nothing allocated is left.
 */
class XdrDecoderFuzzTarget {

    @FuzzTest(maxDuration = "10s")
    void fuzz(byte[] input) {
        if (input.length < 1) {
            return;
        }
        int reads = Math.min(input[0] & 0x0F, input.length - 1);
        int streamStart = 1 + reads;
        UnpooledByteBufAllocator alloc = FuzzInput.countingAllocator();
        ByteBuf stream = alloc.buffer().writeBytes(input, streamStart, input.length - streamStart);
        int itemLength = Math.min(4, input.length - streamStart);
        ByteBuf item = alloc.buffer().writeBytes(input, input.length - itemLength, itemLength);
        try {
            XdrDecoder in = new XdrDecoder(stream, item.isReadable() ? List.of(item) : List.of());
            for (int i = 0; i < reads; i++) {
                int op = input[1 + i] & 0xFF;
                try {
                    read(in, op);
                } catch (XdrException e) {
                    assertThat(e.getMessage()).isNotNull();
                }
                assertThat(stream.readerIndex()).isLessThanOrEqualTo(stream.writerIndex());
            }
            assertThat(stream.refCnt()).isEqualTo(1);
            assertThat(item.refCnt()).isEqualTo(1);
        } finally {
            stream.release();
            item.release();
        }
        FuzzInput.assertNothingHeld(alloc);
    }

    private static void read(XdrDecoder in, int op) {
        int arg = op >>> 4;
        switch (op & 0x0F) {
            case 0 -> in.readInt();
            case 1 -> assertThat(in.readUnsignedInt()).isBetween(0L, 0xFFFF_FFFFL);
            case 2 -> in.readBoolean();
            case 3 -> in.readHyper();
            case 4 -> assertThat(in.readFixedOpaque(arg)).hasSize(arg);
            case 5 -> assertThat(in.readOpaque(64).length).isLessThanOrEqualTo(64);
            case 6 -> in.readOpaqueBuf(64).release();
            case 7 -> in.readString(64);
            case 8 -> assertThat(in.readIntArray(16).length).isLessThanOrEqualTo(16);
            case 9 -> assertThat(in.readArray(8, XdrDecoder::readInt)).hasSizeLessThanOrEqualTo(8);
            case 10 -> in.readOptional(XdrDecoder::readHyper);
            case 11 -> in.readDdpEligibleOpaque(64).release();
            default -> in.skip(arg * 4);
        }
    }
}
