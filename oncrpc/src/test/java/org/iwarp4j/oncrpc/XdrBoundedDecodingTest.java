package org.iwarp4j.oncrpc;

import io.netty.buffer.Unpooled;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.Size;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.function.Consumer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.iwarp4j.oncrpc.XdrBytes.decoder;

/**
 * Hostile lengths: every length is checked against the declared maximum and the remaining
 * octets before anything is allocated, and every failure is an {@link XdrException}.
 */
class XdrBoundedDecodingTest {

    @Test
    void opaqueLengthBeyondTheRemainingOctetsIsRefused() {
        // 0xFFFFFFFF would be a 4 GiB allocation if it were trusted.
        assertThatThrownBy(() -> decoder("ffffffff 00000000").readOpaque(Integer.MAX_VALUE))
                .isInstanceOf(XdrException.class).hasMessageContaining("4294967295");
        assertThatThrownBy(() -> decoder("7fffffff 00000000").readOpaque(Integer.MAX_VALUE))
                .isInstanceOf(XdrException.class).hasMessageContaining("remain");
        assertThatThrownBy(() -> decoder("7fffffff 00000000").readOpaqueBuf(Integer.MAX_VALUE))
                .isInstanceOf(XdrException.class).hasMessageContaining("remain");
        assertThatThrownBy(() -> decoder("00000005 01020304 05").readOpaque(8))
                .as("the padding is part of the item").isInstanceOf(XdrException.class);
    }

    @Test
    void lengthBeyondTheDeclaredMaximumIsRefusedEvenIfTheOctetsArePresent() {
        assertThatThrownBy(() -> decoder("00000005 01020304 05000000").readOpaque(4))
                .isInstanceOf(XdrException.class).hasMessageContaining("maximum 4");
        assertThatThrownBy(() -> decoder("00000005 61626364 65000000").readString(4))
                .isInstanceOf(XdrException.class).hasMessageContaining("maximum 4");
    }

    @Test
    void arrayCountIsBoundedByTheRemainingWordsBeforeTheListIsAllocated() {
        assertThatThrownBy(() -> decoder("7fffffff 00000001").readArray(Integer.MAX_VALUE, XdrDecoder::readInt))
                .isInstanceOf(XdrException.class).hasMessageContaining("2147483647 elements");
        assertThatThrownBy(() -> decoder("7fffffff 00000001").readIntArray(Integer.MAX_VALUE))
                .isInstanceOf(XdrException.class);
        assertThatThrownBy(() -> decoder("00000011").readIntArray(16))
                .isInstanceOf(XdrException.class).hasMessageContaining("maximum 16");
    }

    @Test
    void truncatedItemsAreRefused() {
        assertThatThrownBy(() -> decoder("000000").readInt()).isInstanceOf(XdrException.class);
        assertThatThrownBy(() -> decoder("00000000 000000").readHyper()).isInstanceOf(XdrException.class);
        assertThatThrownBy(() -> decoder("010203").readFixedOpaque(3)).isInstanceOf(XdrException.class);
        assertThatThrownBy(() -> decoder("00").skip(2)).isInstanceOf(XdrException.class);
    }

    @Test
    void anItemThatFillsTheRestExactlyIsReadAndOneOctetShortIsRefusedWithItsName() {
        // the item's name is built only on failure (the bounds check runs for every file handle)
        assertThat(decoder("01020300").readFixedOpaque(3)).containsExactly(1, 2, 3);
        assertThatThrownBy(() -> decoder("010203").readFixedOpaque(3)).isInstanceOf(XdrException.class)
                .hasMessage("opaque[3] needs 4 octets but only 3 remain");
        assertThat(decoder("00000003 01020300").readOpaqueBuf(8)).satisfies(b -> {
            assertThat(b.readableBytes()).isEqualTo(3);
            b.release();
        });
        assertThatThrownBy(() -> decoder("00000003 010203").readOpaqueBuf(8)).isInstanceOf(XdrException.class)
                .hasMessage("opaque<8> of 3 needs 4 octets but only 3 remain");
        assertThat(decoder("00000003 61626300").readString(8)).isEqualTo("abc");
        assertThatThrownBy(() -> decoder("00000003 616263").readString(8)).isInstanceOf(XdrException.class)
                .hasMessage("string<8> of 3 needs 4 octets but only 3 remain");
    }

    private static final List<Consumer<XdrDecoder>> READERS = List.of(
            XdrDecoder::readInt, XdrDecoder::readBoolean, XdrDecoder::readHyper,
            d -> d.readOpaque(1024), d -> d.readOpaqueBuf(Integer.MAX_VALUE).release(),
            d -> d.readDdpEligibleOpaque(Integer.MAX_VALUE).release(), d -> d.readString(255),
            d -> d.readIntArray(16), d -> d.readArray(Integer.MAX_VALUE, XdrDecoder::readHyper),
            d -> OpaqueAuth.decode(d));

    @Property(tries = 500)
    void arbitraryOctetsFailOnlyWithXdrException(@ForAll @Size(max = 64) byte[] octets,
                                                 @ForAll @Size(min = 1, max = 12) List<@net.jqwik.api.constraints.IntRange(max = 9) Integer> reads) {
        XdrDecoder in = new XdrDecoder(Unpooled.wrappedBuffer(octets));
        try {
            for (int r : reads) {
                READERS.get(r).accept(in);
            }
        } catch (XdrException expected) {
            assertThat(expected.getMessage()).isNotBlank();
        }
        assertThat(in.remaining()).isBetween(0, octets.length);
    }
}
