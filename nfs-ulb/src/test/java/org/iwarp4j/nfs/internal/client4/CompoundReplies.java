package org.iwarp4j.nfs.internal.client4;

import static org.iwarp4j.nfs.v4.Nfs4Constants.*;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.iwarp4j.nfs.v4.FileAttributes4;
import org.iwarp4j.nfs.v4.Stateid4;
import org.iwarp4j.oncrpc.XdrDecoder;

/**
 * The NFSv4.1 client's handling of a COMPOUND reply, opened to tests outside this package (the
 * fuzz target {@code Nfs4CompoundReplyFuzzTarget}): {@link CompoundResult} decoded for operations
 * given by opcode, and what the client then does with it — the slot outcome, SEQUENCE's slot limits,
 * {@link CompoundResult#check()}, the bodies it takes, {@link CompoundResult#release()}.
 */
public final class CompoundReplies {

    /** The type the client casts each operation's result body to ({@code body(opcode)}); none: no body. */
    private static final Map<Integer, Class<?>> BODIES = Map.ofEntries(
            Map.entry(OP_SEQUENCE, CompoundResult.Sequence.class),
            Map.entry(OP_EXCHANGE_ID, CompoundResult.ExchangeId.class),
            Map.entry(OP_CREATE_SESSION, CompoundResult.CreateSession.class),
            Map.entry(OP_GETFH, byte[].class),
            Map.entry(OP_GETATTR, FileAttributes4.class),
            Map.entry(OP_OPEN, CompoundResult.Open.class),
            Map.entry(OP_CLOSE, Stateid4.class),
            Map.entry(OP_READ, CompoundResult.Read.class),
            Map.entry(OP_WRITE, CompoundResult.Write.class),
            Map.entry(OP_COMMIT, Long.class),
            Map.entry(OP_READLINK, String.class),
            Map.entry(OP_READDIR, CompoundResult.Readdir.class));

    private CompoundReplies() {
    }

    /**
     * Decodes a COMPOUND4res as the client does for a COMPOUND of {@code opcodes} (their arguments
     * do not matter to decoding); {@code maxRead} bounds READ data. Throws what decoding throws.
     */
    public static Reply decode(XdrDecoder in, int[] opcodes, int maxRead) {
        List<Op> sent = new ArrayList<>();
        for (int opcode : opcodes) {
            sent.add(new Op(opcode, "operation " + opcode, out -> { }));
        }
        return new Reply(CompoundResult.decode(in, List.copyOf(sent), maxRead));
    }

    /** A decoded reply. */
    public static final class Reply {
        private final CompoundResult result;

        private Reply(CompoundResult result) {
            this.result = result;
        }

        /** The COMPOUND's status, made consistent with the results. */
        public int status() {
            return result.status;
        }

        public int failedStatus() {
            return result.failedStatus();
        }

        public int results() {
            return result.results.size();
        }

        public int opcode(int index) {
            return result.results.get(index).opcode();
        }

        public int status(int index) {
            return result.results.get(index).status();
        }

        /** Whether every result the reply has holds the body the client takes from it (none where it takes none). */
        public boolean bodiesAsTheClientTakesThem() {
            for (CompoundResult.Result r : result.results) {
                Class<?> type = r.status() == NFS4_OK ? BODIES.get(r.opcode()) : null;
                if (type == null ? r.body() != null : !type.isInstance(r.body())) {
                    return false;
                }
            }
            return true;
        }

        /**
         * {@link CompoundResult#check()} and then the body of every operation sent, as the client
         * takes them from a checked reply.
         */
        public void checkAndTakeBodies() {
            result.check();
            for (Op op : result.sent) {
                Object body = result.body(op.opcode());
                Class<?> type = BODIES.get(op.opcode());
                if (type != null && !type.isInstance(body)) {
                    throw new AssertionError("a checked reply without the body of " + op.what() + ": " + body);
                }
            }
        }

        /** What becomes of the call's slot ({@link Nfs4Connection#outcome}). */
        public String slotOutcome() {
            return Nfs4Connection.outcome(result, null).name();
        }

        /**
         * The slots a table of {@code size} leaves usable after a successful SEQUENCE's
         * sr_highest_slotid and sr_target_highest_slotid, as the client applies them; -1 if
         * SEQUENCE did not succeed.
         */
        public int usableSlotsAfterSequence(int size) {
            if (result.results.isEmpty() || result.results.get(0).opcode() != OP_SEQUENCE
                    || result.results.get(0).status() != NFS4_OK) {
                return -1;
            }
            CompoundResult.Sequence s = result.body(OP_SEQUENCE);
            SlotTable slots = new SlotTable(size);
            slots.limit(s.highestSlot(), s.targetHighestSlot());
            return slots.usable();
        }

        /** Releases the READ data the client did not take. */
        public void release() {
            result.release();
        }
    }
}
