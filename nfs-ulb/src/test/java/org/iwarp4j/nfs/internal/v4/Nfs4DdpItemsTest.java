package org.iwarp4j.nfs.internal.v4;

import static org.assertj.core.api.Assertions.assertThat;
import static org.iwarp4j.nfs.internal.v4.Nfs4Harness.*;
import static org.iwarp4j.nfs.v4.Nfs4Constants.*;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.function.Consumer;
import org.iwarp4j.nfs.v4.Bitmap4;
import org.iwarp4j.nfs.v4.Stateid4;
import org.iwarp4j.oncrpc.XdrDecoder;
import org.iwarp4j.oncrpc.XdrEncoder;
import org.iwarp4j.oncrpc.XdrMessage;
import org.iwarp4j.oncrpc.XdrPiece;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * RFC 8267 §6.1 and §6.4.1 at the server's edge: a COMPOUND's READ data are DDP-eligible pieces of
 * its reply, in the order of the READs (the RPC-over-RDMA Responder puts the i-th into the i-th
 * Write chunk), and WRITE data or CREATE's link text arriving as a reduced item (a Read chunk) is
 * what gets written or linked.
 */
class Nfs4DdpItemsTest {

    @TempDir
    Path dir;
    Nfs4Harness h;

    @BeforeEach
    void start() throws Exception {
        h = new Nfs4Harness(dir);
        h.session();
    }

    @AfterEach
    void stop() {
        h.close();
    }

    private byte[] fh(String name) {
        Reply r = h.sequenced(putrootfh(), lookup(name), op(OP_GETFH));
        r.skipSequence();
        r.op(OP_PUTROOTFH);
        r.op(OP_LOOKUP);
        r.op(OP_GETFH);
        return r.in.readOpaque(128);
    }

    @Test
    void twoReadsGiveTwoDdpEligiblePiecesInOrder() throws Exception {
        Files.writeString(dir.resolve("a"), "first file");
        Files.writeString(dir.resolve("b"), "second");
        byte[] a = fh("a");
        byte[] b = fh("b");
        ByteBuf args = args(1, "", List.of(sequence(h.sessionId, 1, 5), putfh(a), read(Stateid4.ANONYMOUS, 0, 100),
                putfh(b), read(Stateid4.ANONYMOUS, 0, 100), getattr(FATTR4_SIZE)));
        XdrMessage reply = h.processor.compound(h.rpc(), new XdrDecoder(args));
        try {
            List<XdrPiece> eligible = reply.pieces().stream().filter(XdrPiece::ddpEligible).toList();
            assertThat(eligible).hasSize(2);
            assertThat(eligible.get(0).data().toString(StandardCharsets.UTF_8)).isEqualTo("first file");
            assertThat(eligible.get(1).data().toString(StandardCharsets.UTF_8)).isEqualTo("second");
            assertThat(reply.pieces().indexOf(eligible.get(0))).isLessThan(reply.pieces().indexOf(eligible.get(1)));
        } finally {
            reply.release();
            args.release();
        }
    }

    /** Opens "w" for reading and writing, creating it: the open's stateid. */
    private Stateid4 openW() {
        Reply o = h.sequenced(putrootfh(), open("o", "w", OPEN4_SHARE_ACCESS_BOTH, 0, true));
        o.skipSequence();
        o.op(OP_PUTROOTFH);
        o.op(OP_OPEN);
        return o.openBody();
    }

    /**
     * WRITE of {@code data} at 0 as a Requester sends it in a Read chunk: the reduced stream keeps
     * WRITE's length word, the octets come as a reduced item (RFC 8166 §3.4.6).
     */
    private static Consumer<XdrEncoder> reducedWrite(Stateid4 s, byte[] data) {
        return e -> {
            e.writeInt(OP_WRITE);
            s.encode(e);
            e.writeHyper(0).writeEnum(FILE_SYNC4).writeUnsignedInt(data.length);
        };
    }

    /** The status of the COMPOUND {@code args} whose reduced items are {@code items}; releases them all. */
    private int status(ByteBuf args, ByteBuf... items) {
        XdrMessage reply = h.processor.compound(h.rpc(), new XdrDecoder(args, List.of(items)));
        try {
            ByteBuf stream = reply.stream();
            int status = stream.getInt(0);
            stream.release();
            return status;
        } finally {
            reply.release();
            args.release();
            for (ByteBuf item : items) {
                item.release();
            }
        }
    }

    /**
     * CREATE's link text is DDP-eligible (RFC 8267 §6.1): sent in a Read chunk, it is the first
     * reduced item, and a WRITE later in the COMPOUND takes the next one as its data.
     */
    @Test
    void linkTextFromAReadChunkIsTheSymbolicLinksAndALaterWriteGetsItsOwnData() throws Exception {
        Stateid4 s = openW();
        String text = "a/target/pulled/by/RDMA/Read";
        byte[] data = "the write's own".getBytes(StandardCharsets.UTF_8);
        Consumer<XdrEncoder> reducedCreate = e -> {
            e.writeInt(OP_CREATE).writeEnum(NF4LNK).writeUnsignedInt(text.length()).writeString("ln", 1024);
            Bitmap4.EMPTY.encode(e);
            e.writeUnsignedInt(0);
        };
        ByteBuf args = args(1, "", List.of(sequence(h.sessionId, 1, 7), putrootfh(), reducedCreate, putfh(fh("w")),
                reducedWrite(s, data)));
        assertThat(status(args, Unpooled.copiedBuffer(text, StandardCharsets.UTF_8), Unpooled.wrappedBuffer(data)))
                .isEqualTo(NFS4_OK);
        assertThat(Files.readSymbolicLink(dir.resolve("ln")).toString()).isEqualTo(text);
        assertThat(dir.resolve("w")).hasBinaryContent(data);
    }

    @Test
    void writeDataFromAReadChunkIsWritten() throws Exception {
        Stateid4 s = openW();
        byte[] data = "pulled by RDMA Read".getBytes(StandardCharsets.UTF_8);
        ByteBuf args = args(1, "", List.of(sequence(h.sessionId, 1, 6), putfh(fh("w")), reducedWrite(s, data)));
        assertThat(status(args, Unpooled.wrappedBuffer(data))).isEqualTo(NFS4_OK);
        assertThat(dir.resolve("w")).hasBinaryContent(data);
    }
}
