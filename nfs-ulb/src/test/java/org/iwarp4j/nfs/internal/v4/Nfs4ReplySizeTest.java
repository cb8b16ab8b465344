package org.iwarp4j.nfs.internal.v4;

import static org.assertj.core.api.Assertions.assertThat;
import static org.iwarp4j.nfs.internal.v4.Nfs4Harness.*;
import static org.iwarp4j.nfs.v4.Nfs4Constants.*;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.function.Consumer;
import org.iwarp4j.nfs.v4.Stateid4;
import org.iwarp4j.oncrpc.XdrEncoder;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The session's reply limits (RFC 8881 §2.10.6.1.3, §18.36.3, §18.46.3), checked on the octets of
 * COMPOUND4res: with sa_cachethis a reply may not pass ca_maxresponsesize_cached, without it
 * ca_maxresponsesize; the operation that would pass it answers NFS4ERR_REP_TOO_BIG_TO_CACHE, resp.
 * NFS4ERR_REP_TOO_BIG, and ends the COMPOUND; an operation that changes state is not run when its
 * largest result would not fit; READ is shortened to fit.
 *
 * <p>The sizes: an accepted RPC reply header with an AUTH_NONE verifier is 24 octets, COMPOUND4res
 * with the one-letter tag "t" 16 more, SEQUENCE's result 44 — 84 before the second operation.
 */
class Nfs4ReplySizeTest {

    private static final int RPC_HEADER = 24;

    @TempDir
    Path dir;
    Nfs4Harness h;

    @BeforeEach
    void start() throws Exception {
        h = new Nfs4Harness(dir);
        Files.write(dir.resolve("f"), new byte[] {1, 2, 3});
    }

    @AfterEach
    void stop() {
        h.close();
    }

    /** EXCHANGE_ID and CREATE_SESSION with these fore channel reply limits; returns the session id. */
    private byte[] session(int maxResponseSize, int maxResponseSizeCached) {
        Reply x = h.compound(exchangeId("sizes", 1));
        assertThat(x.op(OP_EXCHANGE_ID)).isEqualTo(NFS4_OK);
        long clientId = x.in.readHyper();
        int seq = x.in.readInt();
        Consumer<XdrEncoder> cs = e -> {
            e.writeInt(OP_CREATE_SESSION).writeHyper(clientId).writeInt(seq).writeInt(0);
            channel(1 << 20, maxResponseSize, maxResponseSizeCached, 16, 4).accept(e);
            channel(4096, 4096, 0, 2, 1).accept(e);
            e.writeInt(0x40000000).writeUnsignedInt(0);
        };
        Reply c = h.compound(cs);
        assertThat(c.op(OP_CREATE_SESSION)).isEqualTo(NFS4_OK);
        byte[] sid = c.in.readFixedOpaque(16);
        c.in.readInt(); // csr_sequence
        c.in.readInt(); // csr_flags
        c.in.readInt(); // ca_headerpadsize
        c.in.readInt(); // ca_maxrequestsize
        assertThat(c.in.readInt()).as("ca_maxresponsesize granted").isEqualTo(maxResponseSize);
        assertThat(c.in.readInt()).as("ca_maxresponsesize_cached granted").isEqualTo(maxResponseSizeCached);
        return sid;
    }

    private static Consumer<XdrEncoder> getattrMany() {
        return getattr(FATTR4_TYPE, FATTR4_CHANGE, FATTR4_SIZE, FATTR4_FSID, FATTR4_FILEID, FATTR4_MODE,
                FATTR4_NUMLINKS, FATTR4_OWNER, FATTR4_OWNER_GROUP, FATTR4_SPACE_USED, FATTR4_TIME_ACCESS,
                FATTR4_TIME_METADATA, FATTR4_TIME_MODIFY, FATTR4_MOUNTED_ON_FILEID);
    }

    @Test
    void anOperationPastTheCachedLimitIsRepTooBigToCacheAndTheKeptReplyIsReplayed() {
        byte[] sid = session(1 << 20, 200);
        List<Consumer<XdrEncoder>> ops = List.of(sequence(sid, 1, 0, true), putrootfh(), op(OP_GETFH),
                getattrMany(), op(OP_GETFH));
        Reply r = h.compound(1, ops);
        assertThat(r.status).isEqualTo(NFS4ERR_REP_TOO_BIG_TO_CACHE);
        assertThat(r.count).as("SEQUENCE, PUTROOTFH, GETFH, and GETATTR refused").isEqualTo(4);
        assertThat(r.op(OP_SEQUENCE)).isEqualTo(NFS4_OK);
        r.skipSequence();
        assertThat(r.op(OP_PUTROOTFH)).isEqualTo(NFS4_OK);
        assertThat(r.op(OP_GETFH)).isEqualTo(NFS4_OK);
        r.in.readOpaque(128);
        assertThat(r.op(OP_GETATTR)).isEqualTo(NFS4ERR_REP_TOO_BIG_TO_CACHE);
        assertThat(r.in.isEmpty()).as("nothing follows the refused operation's status").isTrue();
        assertThat(RPC_HEADER + r.octets.readableBytes()).isLessThanOrEqualTo(200);

        // the reply fitted, so it was kept: the retransmission gets the same octets
        assertThat(h.compound(1, ops).bytes()).isEqualTo(r.bytes());

        // the same operations without sa_cachethis are bounded by ca_maxresponsesize only
        Reply uncached = h.compound(1, List.of(sequence(sid, 2, 0, false), putrootfh(), op(OP_GETFH),
                getattrMany(), op(OP_GETFH)));
        assertThat(uncached.status).isEqualTo(NFS4_OK);
        assertThat(uncached.count).isEqualTo(5);
    }

    @Test
    void anOperationPastTheResponseLimitIsRepTooBig() {
        byte[] sid = session(200, 200);
        Reply r = h.compound(1, List.of(sequence(sid, 1, 0, false), putrootfh(), op(OP_GETFH), getattrMany()));
        assertThat(r.status).isEqualTo(NFS4ERR_REP_TOO_BIG);
        assertThat(r.count).isEqualTo(4);
        r.op(OP_SEQUENCE);
        r.skipSequence();
        r.op(OP_PUTROOTFH);
        r.op(OP_GETFH);
        r.in.readOpaque(128);
        assertThat(r.op(OP_GETATTR)).isEqualTo(NFS4ERR_REP_TOO_BIG);
        assertThat(r.in.isEmpty()).isTrue();
    }

    @Test
    void aWriteWhoseResultMightNotFitIsNotRun() throws Exception {
        // 84 after SEQUENCE, 92 after PUTROOTFH, 100 after LOOKUP; WRITE's result takes up to 24: 124 > 120
        byte[] sid = session(1 << 20, 120);
        Reply r = h.compound(1, List.of(sequence(sid, 1, 0, true), putrootfh(), lookup("f"),
                write(Stateid4.ANONYMOUS, 0, FILE_SYNC4, new byte[] {9, 9, 9, 9})));
        assertThat(r.status).isEqualTo(NFS4ERR_REP_TOO_BIG_TO_CACHE);
        r.op(OP_SEQUENCE);
        r.skipSequence();
        assertThat(r.op(OP_PUTROOTFH)).isEqualTo(NFS4_OK);
        assertThat(r.op(OP_LOOKUP)).isEqualTo(NFS4_OK);
        assertThat(r.op(OP_WRITE)).isEqualTo(NFS4ERR_REP_TOO_BIG_TO_CACHE);
        assertThat(Files.readAllBytes(dir.resolve("f"))).as("the WRITE did not run").containsExactly(1, 2, 3);

        Reply remove = h.compound(1, List.of(sequence(sid, 2, 0, true), putrootfh(), putrootfh(),
                e -> e.writeInt(OP_REMOVE).writeString("f", 1024)));
        assertThat(remove.status).as("REMOVE's result (change_info4) might not fit").isEqualTo(
                NFS4ERR_REP_TOO_BIG_TO_CACHE);
        assertThat(Files.exists(dir.resolve("f"))).as("the REMOVE did not run").isTrue();

        // not asked to be kept, it is bounded by ca_maxresponsesize and runs
        Reply runs = h.compound(1, List.of(sequence(sid, 3, 0, false), putrootfh(), lookup("f"),
                write(Stateid4.ANONYMOUS, 0, FILE_SYNC4, new byte[] {9, 9, 9, 9})));
        assertThat(runs.status).isEqualTo(NFS4_OK);
        assertThat(Files.readAllBytes(dir.resolve("f"))).containsExactly(9, 9, 9, 9);
    }

    @Test
    void aReadIsShortenedToTheCachedLimitAndItsReplyIsKept() throws Exception {
        byte[] content = new byte[20_000];
        for (int i = 0; i < content.length; i++) {
            content[i] = (byte) (i * 7);
        }
        Files.write(dir.resolve("big"), content);
        byte[] sid = session(1 << 20, 4096);
        List<Consumer<XdrEncoder>> ops = List.of(sequence(sid, 1, 1, true), putrootfh(), lookup("big"),
                read(Stateid4.ANONYMOUS, 0, 20_000));
        Reply r = h.compound(1, ops);
        assertThat(r.status).isEqualTo(NFS4_OK);
        r.op(OP_SEQUENCE);
        r.skipSequence();
        r.op(OP_PUTROOTFH);
        r.op(OP_LOOKUP);
        assertThat(r.op(OP_READ)).isEqualTo(NFS4_OK);
        assertThat(r.in.readBoolean()).as("eof of a short read").isFalse();
        byte[] data = r.in.readOpaque(Integer.MAX_VALUE);
        // 84 + 8 + 8 before READ's result, 8 for eof and the length: 3988 octets, a multiple of 4
        assertThat(data.length).isEqualTo(4096 - RPC_HEADER - 16 - 44 - 8 - 8 - 8 - 8);
        assertThat(data).isEqualTo(java.util.Arrays.copyOf(content, data.length));
        assertThat(RPC_HEADER + r.octets.readableBytes()).isEqualTo(4096);
        assertThat(h.compound(1, ops).bytes()).as("kept and replayed").isEqualTo(r.bytes());

        // without sa_cachethis the whole file comes
        Reply whole = h.compound(1, List.of(sequence(sid, 2, 1, false), putrootfh(), lookup("big"),
                read(Stateid4.ANONYMOUS, 0, 20_000)));
        whole.op(OP_SEQUENCE);
        whole.skipSequence();
        whole.op(OP_PUTROOTFH);
        whole.op(OP_LOOKUP);
        assertThat(whole.op(OP_READ)).isEqualTo(NFS4_OK);
        assertThat(whole.in.readBoolean()).isTrue();
        assertThat(whole.in.readOpaque(Integer.MAX_VALUE)).isEqualTo(content);
    }

    @Test
    void aSequenceWhoseOwnResultDoesNotFitFailsAndLeavesTheSlot() {
        byte[] sid = session(1 << 20, 80);
        Reply r = h.compound(1, List.of(sequence(sid, 1, 0, true), putrootfh()));
        assertThat(r.count).isEqualTo(1);
        assertThat(r.op(OP_SEQUENCE)).isEqualTo(NFS4ERR_REP_TOO_BIG_TO_CACHE);
        // the slot did not advance: the same sequenceid, not cached, runs
        Reply next = h.compound(1, List.of(sequence(sid, 1, 0, false), putrootfh()));
        assertThat(next.status).isEqualTo(NFS4_OK);
        assertThat(next.count).isEqualTo(2);
    }
}
