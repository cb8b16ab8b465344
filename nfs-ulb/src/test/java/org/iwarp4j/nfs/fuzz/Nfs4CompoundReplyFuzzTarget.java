package org.iwarp4j.nfs.fuzz;

import static org.assertj.core.api.Assertions.assertThat;
import static org.iwarp4j.nfs.v4.Nfs4Constants.NFS4_OK;
import static org.iwarp4j.nfs.v4.Nfs4Constants.OP_ILLEGAL;

import com.code_intelligence.jazzer.junit.FuzzTest;
import io.netty.buffer.UnpooledByteBufAllocator;
import org.iwarp4j.nfs.Nfs4StatusException;
import org.iwarp4j.nfs.internal.client4.CompoundReplies;
import org.iwarp4j.oncrpc.XdrException;
import org.iwarp4j.testkit.FuzzInput;

/**
 * Jazzer target for the NFSv4.1/4.2 client's decoding of a COMPOUND reply (RFC 8881 §16.2.2, the
 * results of §18 the client decodes: SEQUENCE, EXCHANGE_ID, CREATE_SESSION, GETFH, GETATTR's
 * fattr4, OPEN with any delegation, CLOSE, READ, WRITE, COMMIT, READLINK, REMOVE, READDIR) and of
 * what it does with the decoded reply: the slot's outcome, SEQUENCE's slot limits, the check that
 * turns a failed COMPOUND into {@link Nfs4StatusException}, the bodies it takes ({@link
 * CompoundReplies}). Input layout: octet 0 = bits 0-3 the number of operations sent minus one, bit
 * 4 READ data limited to 64 octets (else 1 MiB), bit 6 READ data as a reduced data item (see {@link
 * ReplyInput}); then one octet per operation sent, its opcode; then the COMPOUND4res. Seeds: the
 * replies of the Linux NFSv4.2-over-RDMA capture in {@code testdata/captures/}, the first of each
 * sequence of operations on each connection (those in Reply chunks put together from the RDMA
 * Writes; READ with its Write chunk data as the reduced item, cut to 1024 octets and its length
 * made to match), and replies written with the project's XDR encoder for what the capture lacks
 * (READLINK, REMOVE, failures, delegations, a reply short of results, OP_ILLEGAL; {@code enc-*},
 * {@link NfsClientReplySeedsTest}).
 *
 * <p>Properties: decoding throws nothing but {@link XdrException}; a decoded reply has no more
 * results than operations sent, each for its operation (or OP_ILLEGAL, failed), only the last
 * failed, each holding the body the client takes from it; its status is NFS4_OK only when every
 * operation has a successful result, and then the check passes and the client finds every body
 * it takes, otherwise the check fails with the failed status; a reply never retires the slot, and
 * SEQUENCE's limits leave between 1 and all of the slots usable; once the client released what it
 * did not take, nothing allocated for the reply is held.
 */
class Nfs4CompoundReplyFuzzTarget {

    private static final int SLOTS = 16;

    @FuzzTest(maxDuration = "10s")
    void fuzz(byte[] input) {
        if (input.length < 1) {
            return;
        }
        int[] opcodes = new int[Math.min(1 + (input[0] & 0x0F), input.length - 1)];
        if (opcodes.length == 0) {
            return;
        }
        for (int i = 0; i < opcodes.length; i++) {
            opcodes[i] = input[1 + i] & 0xFF;
        }
        int maxRead = (input[0] & 0x10) != 0 ? 64 : 1 << 20;
        UnpooledByteBufAllocator alloc = FuzzInput.countingAllocator();
        ReplyInput reply = ReplyInput.of(alloc, input, 1 + opcodes.length, (input[0] & 0x40) != 0);
        CompoundReplies.Reply r;
        try {
            r = CompoundReplies.decode(reply.decoder(), opcodes, maxRead);
        } catch (XdrException e) {
            r = null; // documented: the call fails with it
        }
        if (r != null) {
            check(r, opcodes);
        }
        reply.release();
        FuzzInput.assertNothingHeld(alloc);
    }

    private static void check(CompoundReplies.Reply r, int[] opcodes) {
        assertThat(r.results()).isLessThanOrEqualTo(opcodes.length);
        boolean allOk = r.results() == opcodes.length;
        for (int i = 0; i < r.results(); i++) {
            boolean last = i == r.results() - 1;
            if (r.opcode(i) == OP_ILLEGAL) {
                assertThat(r.status(i)).as("OP_ILLEGAL's status").isNotEqualTo(NFS4_OK);
            } else {
                assertThat(r.opcode(i)).as("result %d's operation", i).isEqualTo(opcodes[i]);
            }
            if (!last) {
                assertThat(r.status(i)).as("a result after a failed one").isEqualTo(NFS4_OK);
            }
            allOk &= r.status(i) == NFS4_OK;
        }
        assertThat(r.bodiesAsTheClientTakesThem()).isTrue();
        if (r.status() == NFS4_OK) {
            assertThat(allOk).as("NFS4_OK only when every operation succeeded").isTrue();
        }
        assertThat(r.slotOutcome()).as("a reply never retires the slot").isNotEqualTo("UNKNOWN");
        int usable = r.usableSlotsAfterSequence(SLOTS);
        if (usable != -1) {
            assertThat(usable).isBetween(1, SLOTS);
        }
        if (r.status() == NFS4_OK) {
            r.checkAndTakeBodies();
            r.release();
        } else {
            int status = r.failedStatus();
            assertThat(status).isNotEqualTo(NFS4_OK);
            try {
                r.checkAndTakeBodies();
                throw new AssertionError("a failed COMPOUND passed the check");
            } catch (Nfs4StatusException e) {
                // check() released the reply's READ data before it threw
                assertThat(e.nfs4Status()).isEqualTo(status);
            }
        }
    }
}
