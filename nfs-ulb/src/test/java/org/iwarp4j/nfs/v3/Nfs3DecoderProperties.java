package org.iwarp4j.nfs.v3;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.util.List;
import java.util.function.Function;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.IntRange;
import org.iwarp4j.nfs.mount.ExportNode;
import org.iwarp4j.nfs.mount.MountBody;
import org.iwarp4j.nfs.mount.Mountres3;
import org.iwarp4j.oncrpc.XdrDecoder;
import org.iwarp4j.oncrpc.XdrEncoder;
import org.iwarp4j.oncrpc.XdrException;
import org.iwarp4j.oncrpc.XdrMessage;

/**
 * Peer-controlled bytes: every NFSv3 and MOUNT decoder either decodes or throws {@link XdrException}
 * (which a server answers with GARBAGE_ARGS) — never another exception, never a leak; and
 * attribute structures survive an encode/decode round trip.
 */
class Nfs3DecoderProperties {

    private static final List<Function<XdrDecoder, Object>> DECODERS = List.of(
            NfsFh3::decode, Setattr3Args::decode, DirOpArgs3::decode, Access3Args::decode, Read3Args::decode,
            in -> release(Write3Args.decode(in, 1 << 16)), Create3Args::decode, Mkdir3Args::decode,
            Symlink3Args::decode, Mknod3Args::decode, Rename3Args::decode, Link3Args::decode, Readdir3Args::decode,
            Readdirplus3Args::decode, Commit3Args::decode, Getattr3Res::decode, WccRes3::decode, Lookup3Res::decode,
            Access3Res::decode, Readlink3Res::decode, in -> release(Read3Res.decode(in, 1 << 16)), Write3Res::decode,
            Create3Res::decode, Rename3Res::decode, Link3Res::decode, Readdir3Res::decode, Readdirplus3Res::decode,
            Fsstat3Res::decode, Fsinfo3Res::decode, Pathconf3Res::decode, Commit3Res::decode, Mountres3::decode,
            MountBody::decodeList, ExportNode::decodeList);

    private static Object release(Write3Args a) {
        a.release();
        return a;
    }

    private static Object release(Read3Res r) {
        r.release();
        return r;
    }

    @Provide
    Arbitrary<byte[]> words() {
        // Mostly small values so that statuses, enums, booleans and lengths are often valid.
        Arbitrary<Integer> word = Arbitraries.frequencyOf(
                net.jqwik.api.Tuple.of(6, Arbitraries.integers().between(0, 3)),
                net.jqwik.api.Tuple.of(2, Arbitraries.integers().between(0, 300)),
                net.jqwik.api.Tuple.of(1, Arbitraries.integers()));
        return word.list().ofMaxSize(120).map(list -> {
            ByteBuf b = Unpooled.buffer();
            list.forEach(b::writeInt);
            byte[] out = new byte[b.readableBytes()];
            b.readBytes(out);
            return out;
        });
    }

    @Property(tries = 300)
    void decodersThrowOnlyXdrException(@ForAll("words") byte[] input, @ForAll @IntRange(min = 0, max = 33) int which) {
        ByteBuf in = Unpooled.wrappedBuffer(input);
        try {
            DECODERS.get(which).apply(new XdrDecoder(in));
        } catch (XdrException expected) {
            // the only acceptable failure
        } finally {
            in.release();
        }
    }

    @Provide
    Arbitrary<Fattr3> attributes() {
        Arbitrary<NfsTime3> time = Arbitraries.longs().between(0, 0xFFFF_FFFFL)
                .flatMap(s -> Arbitraries.longs().between(0, 999_999_999L).map(n -> new NfsTime3(s, n)));
        return net.jqwik.api.Combinators.combine(Arbitraries.of(Ftype3.values()), Arbitraries.integers(),
                Arbitraries.integers(), Arbitraries.longs(), Arbitraries.longs(), time, time, time)
                .as((type, mode, uid, size, fileid, a, m, c) -> new Fattr3(type, mode & 07777, 1, uid, uid ^ 5, size,
                        size, new SpecData3(uid, mode), fileid ^ size, fileid, a, m, c));
    }

    @Property(tries = 200)
    void wccAndSattrRoundTrip(@ForAll("attributes") Fattr3 attrs, @ForAll boolean before) {
        WccData wcc = new WccData(before ? attrs.toWccAttr() : null, attrs);
        assertThat(roundTrip(wcc::encode, WccData::decode)).isEqualTo(wcc);
        Sattr3 s = new Sattr3(attrs.mode(), before ? attrs.uid() : null, null, attrs.size(),
                SetTime3.client(attrs.atime()), before ? SetTime3.SERVER_TIME : SetTime3.DONT_CHANGE);
        assertThat(roundTrip(s::encode, Sattr3::decode)).isEqualTo(s);
    }

    private static <T> T roundTrip(java.util.function.Consumer<XdrEncoder> writer, Function<XdrDecoder, T> reader) {
        XdrEncoder out = XdrEncoder.create();
        writer.accept(out);
        XdrMessage m = out.toMessage();
        ByteBuf stream = m.stream();
        try {
            XdrDecoder in = new XdrDecoder(stream);
            T value = reader.apply(in);
            assertThat(in.isEmpty()).isTrue();
            return value;
        } finally {
            stream.release();
            m.release();
        }
    }
}
