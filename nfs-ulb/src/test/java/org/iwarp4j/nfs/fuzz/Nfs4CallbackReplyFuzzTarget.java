package org.iwarp4j.nfs.fuzz;

import static org.assertj.core.api.Assertions.assertThat;

import com.code_intelligence.jazzer.junit.FuzzTest;
import io.netty.buffer.UnpooledByteBufAllocator;
import org.iwarp4j.nfs.internal.v4.CallbackProbes;
import org.iwarp4j.testkit.FuzzInput;

/**
 * Jazzer target for the NFSv4.1 server's decoding of a client's answer on the back channel: the
 * reply to the CB_COMPOUND (CB_SEQUENCE) with which the server probes a session's back channel
 * (RFC 8881 §20.9, §2.10.3.1), taken through the server's own RPC client ({@link CallbackProbes}).
 * The input is the reply message from the xid on (the call's xid is written over its first four
 * octets). Seeds: the Linux client's reply to knfsd's CB_COMPOUND (CB_SEQUENCE, CB_RECALL) in the
 * NFSv4.2-over-RDMA capture in {@code testdata/captures/}, and replies written with the project's
 * XDR encoder: NFS4_OK, NFS4ERR_DELAY, another first operation, no results, results cut short, an
 * RPC-level failure ({@code enc-*}, {@link NfsClientReplySeedsTest}).
 *
 * <p>Properties: nothing escapes the probe and its outcome is counted exactly once: CB_NULL is
 * answered, and then CB_SEQUENCE is answered, failed, or (NFS4ERR_DELAY) retried later; the probe's
 * RPC client is closed unless a retry is pending; nothing allocated for the calls and replies is held.
 */
class Nfs4CallbackReplyFuzzTarget {

    @FuzzTest(maxDuration = "10s")
    void fuzz(byte[] input) {
        UnpooledByteBufAllocator alloc = FuzzInput.countingAllocator();
        CallbackProbes.Outcome outcome = CallbackProbes.probe(alloc, input);
        long sequenceOutcomes = (outcome.answered() - 1) + outcome.failed() + outcome.retries();
        assertThat(outcome.answered()).as("CB_NULL answered").isGreaterThanOrEqualTo(1);
        assertThat(sequenceOutcomes).as("CB_SEQUENCE's outcome, counted once: " + outcome).isEqualTo(1);
        assertThat(outcome.closed()).as("the client closed unless a retry is pending").isEqualTo(outcome.retries() == 0);
        FuzzInput.assertNothingHeld(alloc);
    }
}
