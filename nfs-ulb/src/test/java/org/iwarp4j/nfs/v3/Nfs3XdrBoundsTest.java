package org.iwarp4j.nfs.v3;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.util.List;
import org.iwarp4j.nfs.mount.ExportNode;
import org.iwarp4j.nfs.mount.MountBody;
import org.iwarp4j.nfs.mount.MountStat3;
import org.iwarp4j.nfs.mount.Mountres3;
import org.iwarp4j.oncrpc.XdrDecoder;
import org.iwarp4j.oncrpc.XdrEncoder;
import org.iwarp4j.oncrpc.XdrException;
import org.iwarp4j.oncrpc.XdrMessage;
import org.iwarp4j.testkit.Hex;
import org.junit.jupiter.api.Test;

/** Bounded decoding of peer-controlled NFSv3 and MOUNT data, and round trips of what Linux does not send. */
class Nfs3XdrBoundsTest {

    private static ByteBuf words(String hex) {
        return Unpooled.wrappedBuffer(Hex.decode(hex));
    }

    @Test
    void fileHandleLongerThan64OctetsIsRejected() {
        ByteBuf in = Unpooled.buffer().writeInt(65).writeZero(68);
        try {
            assertThatThrownBy(() -> NfsFh3.decode(new XdrDecoder(in))).isInstanceOf(XdrException.class);
        } finally {
            in.release();
        }
        assertThatThrownBy(() -> new NfsFh3(new byte[65])).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void hugeNameLengthCostsNothing() {
        ByteBuf in = words("00000000 7fffffff 41414141");
        try {
            assertThatThrownBy(() -> DirOpArgs3.decode(new XdrDecoder(in))).isInstanceOf(XdrException.class);
        } finally {
            in.release();
        }
    }

    @Test
    void unknownEnumsAndTruncationAreXdrErrors() {
        for (String hex : List.of("00000063", "00000000 00000001", "00000000")) {
            ByteBuf in = words(hex);
            try {
                assertThatThrownBy(() -> Getattr3Res.decode(new XdrDecoder(in))).isInstanceOf(XdrException.class);
            } finally {
                in.release();
            }
        }
        assertThatThrownBy(() -> StableHow.of(3)).isInstanceOf(XdrException.class);
        assertThatThrownBy(() -> Ftype3.of(0)).isInstanceOf(XdrException.class);
    }

    @Test
    void writeWhoseCountDisagreesWithItsDataIsRejectedWithoutLeaking() {
        ByteBuf in = words("00000004 01020304 00000000 00000000 00000005 00000000 00000004 61626364");
        try {
            assertThatThrownBy(() -> Write3Args.decode(new XdrDecoder(in), 1024)).isInstanceOf(XdrException.class)
                    .hasMessageContaining("count 5");
        } finally {
            in.release();
        }
    }

    @Test
    void writeDataBeyondTheServersLimitIsRejected() {
        ByteBuf in = words("00000000 00000000 00000000 00000008 00000002 00000008 6162636465666768");
        try {
            assertThatThrownBy(() -> Write3Args.decode(new XdrDecoder(in), 4)).isInstanceOf(XdrException.class);
        } finally {
            in.release();
        }
    }

    /** The READLINK path and SYMLINK path are DDP-eligible pieces (RFC 8267 §4), padding implicit. */
    @Test
    void symlinkPathsAreDdpEligiblePieces() {
        XdrEncoder out = XdrEncoder.create();
        new Symlink3Args(new DirOpArgs3(new NfsFh3(new byte[] {1}), "l"), Sattr3.NONE, "target").encode(out);
        XdrMessage m = out.toMessage();
        try {
            assertThat(m.pieces()).extracting(p -> p.ddpEligible()).containsExactly(false, true);
            assertThat(m.readableBytes()).isEqualTo(8 + 8 + 6 * 4 + 4 + 8);
            ByteBuf stream = m.stream();
            try {
                Symlink3Args back = Symlink3Args.decode(new XdrDecoder(stream));
                assertThat(back.symlinkData()).isEqualTo("target");
            } finally {
                stream.release();
            }
        } finally {
            m.release();
        }
    }

    @Test
    void readdirAndMountListsRoundTrip() {
        Readdir3Res res = new Readdir3Res(Nfs3Status.NFS3_OK, null, 7,
                List.of(new Entry3(1, ".", 1), new Entry3(2, "name", 2)), true);
        assertThat(roundTrip(res::encode, Readdir3Res::decode)).isEqualTo(res);
        int resok = Readdir3Res.RESOK_OVERHEAD - 4 - 84 + res.entries().stream().mapToInt(Entry3::encodedLength).sum();
        XdrEncoder sized = XdrEncoder.create();
        res.encode(sized);
        assertThat(sized.length()).isEqualTo(4 + 4 + resok);
        sized.discard();

        Mountres3 mnt = new Mountres3(MountStat3.MNT3_OK, new NfsFh3(new byte[] {9, 9}), List.of(1, 0));
        assertThat(roundTrip(mnt::encode, Mountres3::decode)).isEqualTo(mnt);
        List<MountBody> dump = List.of(new MountBody("h1", "/export"), new MountBody("h2", "/export"));
        assertThat(roundTrip(o -> MountBody.encodeList(o, dump), MountBody::decodeList)).isEqualTo(dump);
        List<ExportNode> exports = List.of(new ExportNode("/export", List.of("*")), new ExportNode("/b", List.of()));
        assertThat(roundTrip(o -> ExportNode.encodeList(o, exports), ExportNode::decodeList)).isEqualTo(exports);
    }

    private static <T> T roundTrip(java.util.function.Consumer<XdrEncoder> writer,
                                   java.util.function.Function<XdrDecoder, T> reader) {
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
