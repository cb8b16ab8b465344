package org.iwarp4j.tools.rping.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.nio.charset.StandardCharsets;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.LongRange;
import org.junit.jupiter.api.Test;

/** rping's ping data pattern, from rping.c's {@code rping_test_client}; the capture check is in RpingCaptureTest. */
class PingDataTest {

    @Test
    void pingZeroAtTheDefaultSizeIsWhatSiwsRpingRead() {
        // The Read Response payload of frame 10 of rping-siw.pcap, as text (63 characters and a NUL).
        String expected = "rdma-ping-0: ABCDEFGHIJKLMNOPQRSTUVWXYZ[\\]^_`abcdefghijklmnopqr";
        byte[] data = PingData.of(0, 64);
        assertThat(new String(data, 0, 63, StandardCharsets.US_ASCII)).isEqualTo(expected);
        assertThat(data[63]).isZero();
    }

    @Test
    void theFirstCharacterMovesOnByOnePerPingAndWrapsFromZToA() {
        assertThat(PingData.of(1, 23)[13]).isEqualTo((byte) 'B'); // after "rdma-ping-1: "
        assertThat(PingData.of(57, 23)[14]).isEqualTo((byte) 'z'); // after "rdma-ping-57: "
        assertThat(PingData.of(58, 23)[14]).isEqualTo((byte) 'A');
        assertThat(PingData.of(58, 23)[15]).isEqualTo((byte) 'B');
    }

    @Test
    void theLongestPrefixStillFitsTheSmallestSize() {
        // RPING_MIN_BUFSIZE 23: "rdma-ping-2147483647: " is 22 characters, then the NUL.
        byte[] data = PingData.of(Integer.MAX_VALUE, 23);
        assertThat(new String(data, 0, 22, StandardCharsets.US_ASCII)).isEqualTo("rdma-ping-2147483647: ");
        assertThat(data[22]).isZero();
    }

    @Test
    void aPrefixLongerThanTheBufferIsCutAsSnprintfCutsIt() {
        byte[] data = PingData.of(12345, 8);
        assertThat(new String(data, 0, 7, StandardCharsets.US_ASCII)).isEqualTo("rdma-pi");
        assertThat(data[7]).isZero();
        assertThatThrownBy(() -> PingData.of(0, 0)).isInstanceOf(IllegalArgumentException.class);
    }

    @Property
    void everyPingIsPrefixRotatingLettersAndANul(@ForAll @LongRange(max = 1_000_000_000L) long ping,
                                                @ForAll @IntRange(min = 23, max = 65535) int size) {
        byte[] data = PingData.of(ping, size);
        String prefix = "rdma-ping-" + ping + ": ";
        assertThat(new String(data, 0, prefix.length(), StandardCharsets.US_ASCII)).isEqualTo(prefix);
        assertThat(data[size - 1]).isZero();
        int c = 'A' + (int) (ping % 58);
        for (int i = prefix.length(); i < size - 1; i++) {
            assertThat(data[i]).as("octet %d", i).isEqualTo((byte) c);
            c = c == 'z' ? 'A' : c + 1;
        }
    }

    @Test
    void cStringStopsAtTheNulOrTheLimit() {
        ByteBuf b = Unpooled.wrappedBuffer("abc\0def".getBytes(StandardCharsets.US_ASCII));
        assertThat(PingData.cString(b, 0, 7)).isEqualTo("abc");
        assertThat(PingData.cStringLength(b, 4, 3)).isEqualTo(3);
        assertThat(PingData.cString(b, 4, 2)).isEqualTo("de");
    }

    /**
     * A peer chooses the octets -v prints: control octets (a terminal's escape sequences) are
     * shown as \xNN, not sent to the operator's terminal.
     */
    @Test
    void cStringShowsControlOctetsEscaped() {
        ByteBuf b = Unpooled.wrappedBuffer("a\u001b]0;x\u0007b\u007f\u009bc\u00e9".getBytes(StandardCharsets.ISO_8859_1));
        assertThat(PingData.cString(b, 0, b.readableBytes())).isEqualTo("a\\x1b]0;x\\x07b\\x7f\\x9bc\u00e9");
    }

    @Test
    void firstDifferenceFindsTheFirstChangedOctet() {
        byte[] expected = PingData.of(3, 64);
        ByteBuf actual = Unpooled.wrappedBuffer(expected.clone());
        assertThat(PingData.firstDifference(expected, actual, 0)).isEqualTo(-1);
        actual.setByte(40, 'X');
        actual.setByte(50, 'X');
        assertThat(PingData.firstDifference(expected, actual, 0)).isEqualTo(40);
    }
}
