package org.iwarp4j.nfs.internal.client4;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.iwarp4j.nfs.v4.Nfs4Constants.NFS4ERR_DELAY;
import static org.iwarp4j.nfs.v4.Nfs4Constants.NFS4ERR_IO;
import static org.iwarp4j.nfs.v4.Nfs4Constants.NFS4ERR_NOENT;
import static org.iwarp4j.nfs.v4.Nfs4Constants.NFS4_OK;
import static org.iwarp4j.nfs.v4.Nfs4Constants.OP_GETFH;
import static org.iwarp4j.nfs.v4.Nfs4Constants.OP_ILLEGAL;
import static org.iwarp4j.nfs.v4.Nfs4Constants.OP_LOOKUP;
import static org.iwarp4j.nfs.v4.Nfs4Constants.OP_PUTFH;
import static org.iwarp4j.nfs.v4.Nfs4Constants.OP_SEQUENCE;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.util.List;
import org.iwarp4j.nfs.Nfs4StatusException;
import org.iwarp4j.oncrpc.XdrDecoder;
import org.iwarp4j.oncrpc.XdrException;
import org.junit.jupiter.api.Test;

/**
 * COMPOUND4res decoded from octets whose COMPOUND status does not agree with the results (RFC
 * 8881 §16.2.3: it is the status of the last operation evaluated, NFS4_OK only when every one was
 * evaluated and succeeded): the caller gets {@link Nfs4StatusException}, never a result without
 * its body.
 */
class CompoundResultTest {

    /** SEQUENCE, PUTFH, LOOKUP d, GETFH: what {@code lookupPath("d")} sends. */
    private static final List<Op> SENT = List.of(Op.sequence(new byte[16], 1, 0, 0, false), Op.putfh(new byte[8]),
            Op.lookup("d"), Op.getfh());

    /** A COMPOUND4res of {@code status} and the results {@code [opcode, status]...}; SEQUENCE's body if it succeeded. */
    private static CompoundResult decode(int status, int... results) {
        ByteBuf b = Unpooled.buffer().writeInt(status).writeInt(0).writeInt(results.length / 2);
        for (int i = 0; i < results.length; i += 2) {
            b.writeInt(results[i]).writeInt(results[i + 1]);
            if (results[i] == OP_SEQUENCE && results[i + 1] == NFS4_OK) {
                b.writeZero(16).writeInt(1).writeInt(0).writeInt(0).writeInt(0).writeInt(0);
            }
        }
        try {
            return CompoundResult.decode(new XdrDecoder(b), SENT, 0);
        } finally {
            b.release();
        }
    }

    @Test
    void anOperationThatFailedUnderCompoundStatusOkFailsWithItsOwnStatus() {
        CompoundResult r = decode(NFS4_OK, OP_SEQUENCE, NFS4_OK, OP_PUTFH, NFS4_OK, OP_LOOKUP, NFS4ERR_NOENT);

        assertThat(r.failedStatus()).isEqualTo(NFS4ERR_NOENT);
        assertThatThrownBy(() -> r.check().body(OP_GETFH)).isInstanceOfSatisfying(Nfs4StatusException.class,
                e -> assertThat(e.nfs4Status()).isEqualTo(NFS4ERR_NOENT)).hasMessage("LOOKUP d: NFS4ERR_NOENT");
    }

    @Test
    void theLastOperationFailingUnderCompoundStatusOkLeavesNoResultWithoutItsBody() {
        CompoundResult r = decode(NFS4_OK, OP_SEQUENCE, NFS4_OK, OP_PUTFH, NFS4_OK, OP_LOOKUP, NFS4_OK,
                OP_GETFH, NFS4ERR_DELAY);

        assertThat(r.failedStatus()).as("retried as a DELAY would be").isEqualTo(NFS4ERR_DELAY);
        assertThatThrownBy(r::check).isInstanceOf(Nfs4StatusException.class).hasMessage("GETFH: NFS4ERR_DELAY");
    }

    @Test
    void resultsMissingUnderCompoundStatusOkAreAnIoError() {
        CompoundResult r = decode(NFS4_OK, OP_SEQUENCE, NFS4_OK, OP_PUTFH, NFS4_OK);

        assertThatThrownBy(() -> r.check().body(OP_GETFH)).isInstanceOfSatisfying(Nfs4StatusException.class,
                e -> assertThat(e.nfs4Status()).isEqualTo(NFS4ERR_IO))
                .hasMessage("COMPOUND (the server answered NFS4_OK with 2 results for 4 operations): NFS4ERR_IO");
        assertThat(Nfs4Connection.outcome(r, null)).as("SEQUENCE ran").isEqualTo(SlotTable.Outcome.ADVANCED);
    }

    @Test
    void aCompoundFailureWhoseResultsAllSucceededNamesTheCompound() {
        CompoundResult r = decode(NFS4ERR_DELAY, OP_SEQUENCE, NFS4_OK, OP_PUTFH, NFS4_OK);

        assertThat(r.failedStatus()).isEqualTo(NFS4ERR_DELAY);
        assertThatThrownBy(r::check).hasMessage("COMPOUND: NFS4ERR_DELAY");
    }

    @Test
    void anIllegalOperationThatClaimsSuccessIsUndecodable() {
        assertThatThrownBy(() -> decode(NFS4_OK, OP_SEQUENCE, NFS4_OK, OP_ILLEGAL, NFS4_OK))
                .isInstanceOf(XdrException.class);
    }
}
