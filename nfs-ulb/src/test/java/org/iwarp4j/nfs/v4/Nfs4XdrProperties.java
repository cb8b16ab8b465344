package org.iwarp4j.nfs.v4;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.Size;
import org.iwarp4j.oncrpc.XdrDecoder;
import org.iwarp4j.oncrpc.XdrEncoder;
import org.iwarp4j.oncrpc.XdrMessage;

/** Round trips of the NFSv4 XDR types (RFC 8881 §3.3.11 bitmap4, §8.2 stateid4, §18.36 channel_attrs4). */
class Nfs4XdrProperties {

    private static ByteBuf encode(java.util.function.Consumer<XdrEncoder> body) {
        XdrEncoder e = XdrEncoder.create();
        body.accept(e);
        XdrMessage m = e.toMessage();
        ByteBuf b = m.stream();
        m.release();
        return b;
    }

    @Property
    void bitmapRoundTripsAndNamesItsBits(@ForAll @Size(max = 20) java.util.List<@IntRange(min = 0, max = 255) Integer> bits) {
        Bitmap4 b = Bitmap4.of(bits.stream().mapToInt(Integer::intValue).toArray());
        ByteBuf octets = encode(b::encode);
        try {
            int max = bits.stream().mapToInt(Integer::intValue).max().orElse(-1);
            assertThat(octets.readableBytes()).as("no trailing zero words").isEqualTo(max < 0 ? 4 : 4 + 4 * (max / 32 + 1));
            Bitmap4 back = Bitmap4.decode(new XdrDecoder(octets));
            assertThat(back).isEqualTo(b);
            for (int i = 0; i < 256; i++) {
                assertThat(back.isSet(i)).isEqualTo(bits.contains(i));
            }
            assertThat(back.bits()).containsExactly(bits.stream().distinct().sorted().mapToInt(Integer::intValue).toArray());
        } finally {
            octets.release();
        }
    }

    @Property
    void compoundHeadersRoundTrip(@ForAll int status, @ForAll @Size(max = 1024) byte[] tag,
                                  @ForAll @IntRange(min = 0) int minor, @ForAll @IntRange(min = 0) int count) {
        Compound4Header args = new Compound4Header(0, tag, minor, count);
        ByteBuf a = encode(args::encodeArgs);
        ByteBuf r = encode(new Compound4Header(status, tag, -1, count)::encodeRes);
        try {
            assertThat(a.readableBytes()).isEqualTo(4 + ((tag.length + 3) & ~3) + 8);
            assertThat(Compound4Header.decodeArgs(new XdrDecoder(a))).isEqualTo(args);
            assertThat(r.getInt(0)).isEqualTo(status);
            assertThat(Compound4Header.decodeRes(new XdrDecoder(r))).isEqualTo(new Compound4Header(status, tag, -1, count));
        } finally {
            a.release();
            r.release();
        }
    }

    @Property
    void stateidRoundTrips(@ForAll int seqid, @ForAll @Size(12) byte[] other) {
        Stateid4 s = new Stateid4(seqid, other);
        ByteBuf octets = encode(s::encode);
        try {
            assertThat(octets.readableBytes()).isEqualTo(Stateid4.LENGTH);
            assertThat(octets.getInt(0)).isEqualTo(seqid);
            assertThat(Stateid4.decode(new XdrDecoder(octets))).isEqualTo(s);
        } finally {
            octets.release();
        }
    }

    @Property
    void channelAttributesRoundTrip(@ForAll int pad, @ForAll int req, @ForAll int resp, @ForAll int cached,
                                    @ForAll int ops, @ForAll int reqs, @ForAll @IntRange(min = -1, max = 1000) int ird) {
        ChannelAttrs4 a = new ChannelAttrs4(pad, req, resp, cached, ops, reqs, ird);
        ByteBuf octets = encode(a::encode);
        try {
            assertThat(octets.readableBytes()).isEqualTo(ird < 0 ? 28 : 32);
            assertThat(ChannelAttrs4.decode(new XdrDecoder(octets))).isEqualTo(a);
        } finally {
            octets.release();
        }
    }
}
