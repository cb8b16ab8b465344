package org.iwarp4j.nfs.internal.client4;

import static org.assertj.core.api.Assertions.assertThat;
import static org.iwarp4j.nfs.v4.Nfs4Constants.NFS4ERR_BADSESSION;
import static org.iwarp4j.nfs.v4.Nfs4Constants.NFS4ERR_DELAY;
import static org.iwarp4j.nfs.v4.Nfs4Constants.NFS4ERR_RETRY_UNCACHED_REP;
import static org.iwarp4j.nfs.v4.Nfs4Constants.NFS4ERR_SEQ_FALSE_RETRY;
import static org.iwarp4j.nfs.v4.Nfs4Constants.NFS4ERR_SEQ_MISORDERED;
import static org.iwarp4j.nfs.v4.Nfs4Constants.OP_SEQUENCE;

import io.netty.buffer.Unpooled;
import java.util.List;
import java.util.concurrent.CompletionException;
import org.iwarp4j.oncrpc.RpcTimeoutException;
import org.iwarp4j.oncrpc.XdrDecoder;
import org.iwarp4j.rpcrdma.RpcRdmaErrorException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * What a call's reply does to its session slot (RFC 8881 §2.10.6.1): its sequence id is used up
 * when SEQUENCE ran, also when the server took the call for a retry of the slot's last one (a
 * transport that reconnected sent it again); kept when SEQUENCE was refused otherwise; the slot is
 * retired when nobody knows. Which COMPOUNDs ask the server to keep their reply (sa_cachethis,
 * §2.10.6.1.3), and which the client sends again on the next sequence id when the server ran the
 * first transmission without keeping its reply.
 */
class SlotOutcomeTest {

    /** A COMPOUND4res whose only result is SEQUENCE failing with {@code status}. */
    private static CompoundResult sequenceFailed(int status) {
        byte[] octets = java.nio.ByteBuffer.allocate(20).putInt(status).putInt(0).putInt(1).putInt(OP_SEQUENCE)
                .putInt(status).array(); // status, empty tag, one result
        return CompoundResult.decode(new XdrDecoder(Unpooled.wrappedBuffer(octets)),
                List.of(Op.sequence(new byte[16], 5, 0, 0, false)), 0);
    }

    @ParameterizedTest
    @ValueSource(ints = {NFS4ERR_RETRY_UNCACHED_REP, NFS4ERR_SEQ_FALSE_RETRY})
    void aCallTheServerTookForARetryUsesUpItsSequenceId(int status) {
        assertThat(Nfs4Connection.outcome(sequenceFailed(status), null)).isEqualTo(SlotTable.Outcome.ADVANCED);
    }

    @ParameterizedTest
    @ValueSource(ints = {NFS4ERR_DELAY, NFS4ERR_SEQ_MISORDERED, NFS4ERR_BADSESSION})
    void aSequenceRefusedOtherwiseKeepsItsSequenceId(int status) {
        assertThat(Nfs4Connection.outcome(sequenceFailed(status), null)).isEqualTo(SlotTable.Outcome.NOT_EXECUTED);
    }

    @Test
    void aCompoundThatMustNotRunTwiceAsksForItsReplyToBeKeptWhenTheServerGrantsRoomForIt() {
        List<Op> remove = List.of(Op.putrootfh(), Op.remove("f"));
        List<Op> open = List.of(Op.putrootfh(), Op.open(1, "owner", "f", 1, true), Op.getfh());
        List<Op> lookup = List.of(Op.putrootfh(), Op.lookup("d"), Op.getfh());
        int enough = Nfs4Connection.MIN_CACHED_REPLY;
        assertThat(Nfs4Connection.asksCachedReply(enough, remove)).isTrue();
        assertThat(Nfs4Connection.asksCachedReply(2048, open)).isTrue();
        assertThat(Nfs4Connection.asksCachedReply(enough, lookup)).as("may simply run again").isFalse();
        assertThat(Nfs4Connection.asksCachedReply(enough, List.of())).as("SEQUENCE alone").isFalse();
        assertThat(Nfs4Connection.asksCachedReply(enough - 1, remove))
                .as("the server would answer NFS4ERR_REP_TOO_BIG_TO_CACHE instead of running it").isFalse();
        assertThat(Nfs4Connection.asksCachedReply(0, open)).as("a server that keeps no reply").isFalse();
    }

    @Test
    void onlyACompoundThatChangesNothingIsSentAgainAfterNfs4errRetryUncachedRep() {
        Op sequence = Op.sequence(new byte[16], 5, 0, 0, false);
        assertThat(Nfs4Connection.onlyIdempotent(List.of(sequence, Op.putrootfh(), Op.lookup("d"), Op.getfh(),
                Op.readlink()))).isTrue();
        assertThat(Nfs4Connection.onlyIdempotent(List.of(sequence, Op.putrootfh(), Op.remove("f")))).isFalse();
        assertThat(Nfs4Connection.onlyIdempotent(List.of(sequence, Op.putrootfh(), Op.open(1, "owner", "f", 1, false))))
                .isFalse();
        assertThat(Nfs4Connection.onlyIdempotent(List.of(sequence, Op.putfh(new byte[8]), Op.commit(0, 0))))
                .as("a COMMIT again commits nothing more").isTrue();
    }

    /**
     * ULB-R-031: an RDMA_ERROR is final at the transport (the RPC ends with it, nothing is sent
     * again); only then does NFSv4 judge the slot, as a call the server never ran.
     */
    @Test
    void anRdmaErrorEndsTheCallAsNeverRunAndKeepsTheSlotsSequenceId() {
        RpcRdmaErrorException error = new RpcRdmaErrorException(7, RpcRdmaErrorException.Code.ERR_CHUNK, 0, 0);
        assertThat(Nfs4Connection.outcome(null, new CompletionException(error)))
                .isEqualTo(SlotTable.Outcome.NOT_EXECUTED);
        assertThat(Nfs4Connection.outcome(null, error)).isEqualTo(SlotTable.Outcome.NOT_EXECUTED);
    }

    @Test
    void noReplyRetiresTheSlot() {
        assertThat(Nfs4Connection.outcome(null, new RpcTimeoutException("no reply")))
                .isEqualTo(SlotTable.Outcome.UNKNOWN);
    }
}
