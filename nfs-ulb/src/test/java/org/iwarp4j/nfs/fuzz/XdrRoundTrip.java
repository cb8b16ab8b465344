package org.iwarp4j.nfs.fuzz;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.Unpooled;
import java.util.function.BiConsumer;
import java.util.function.Consumer;
import java.util.function.Function;
import org.iwarp4j.oncrpc.XdrDecoder;
import org.iwarp4j.oncrpc.XdrEncoder;

/**
 * The round trip the NFS fuzz targets check on what a decoder accepted: re-encoding it gives octets
 * that decode and re-encode to the same octets again, and (unless the caller knows better) no more
 * octets than the decoder consumed.
 */
final class XdrRoundTrip {

    private XdrRoundTrip() {
    }

    /**
     * Decodes from {@code in} and checks the round trip; returns what was decoded first.
     *
     * @param mayGrow whether the encoding may be longer than what was read (a reduced stream, whose
     *                data items the encoding writes inline)
     */
    static <A> A check(XdrDecoder in, Function<XdrDecoder, A> decoder, BiConsumer<A, XdrEncoder> encoder,
                       boolean mayGrow) {
        int start = in.buffer().readerIndex();
        A value = decoder.apply(in);
        int consumed = in.buffer().readerIndex() - start;
        // Names are decoded as UTF-8; octets that are not UTF-8 become U+FFFD, which re-encodes
        // longer (possibly past the field's maximum). Only then may the encoding differ in length.
        boolean lossy = String.valueOf(value).indexOf('\uFFFD') >= 0;
        byte[] once;
        try {
            once = octets(out -> encoder.accept(value, out));
        } catch (RuntimeException e) {
            if (lossy) {
                return value;
            }
            throw e;
        }
        if (!lossy && !mayGrow) {
            assertThat(once.length).as("re-encoded octets").isLessThanOrEqualTo(consumed);
        }
        A again = decoder.apply(new XdrDecoder(Unpooled.wrappedBuffer(once)));
        assertThat(octets(out -> encoder.accept(again, out))).isEqualTo(once);
        return value;
    }

    /** The XDR stream {@code writer} encodes, as an array; nothing stays allocated, also if it throws. */
    static byte[] octets(Consumer<XdrEncoder> writer) {
        XdrEncoder out = XdrEncoder.create();
        try {
            writer.accept(out);
        } catch (RuntimeException e) {
            out.discard();
            throw e;
        }
        return out.toByteArray();
    }
}
