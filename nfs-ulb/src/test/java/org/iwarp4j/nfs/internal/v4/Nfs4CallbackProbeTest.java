package org.iwarp4j.nfs.internal.v4;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.Unpooled;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.iwarp4j.nfs.v4.ChannelAttrs4;
import org.iwarp4j.nfs.v4.Nfs4Constants;
import org.iwarp4j.oncrpc.RpcCallInfo;
import org.iwarp4j.oncrpc.RpcClientTransport;
import org.iwarp4j.oncrpc.XdrMessage;
import org.iwarp4j.oncrpc.internal.LogRateLimit;
import org.iwarp4j.testkit.Hex;
import org.junit.jupiter.api.Test;

/**
 * The back channel probe (CB_NULL, then CB_SEQUENCE, retried while the client answers
 * NFS4ERR_DELAY, RFC 8881 §15.1.1.3): a probe that a later one of the same session superseded
 * (its back channel bound again) stops at its next retry instead of going on, so a client that
 * rebinds in a loop and always answers NFS4ERR_DELAY keeps at most one probe per session
 * retrying. The retries run when the test says (a timer of its own).
 */
class Nfs4CallbackProbeTest {

    /** A back channel that answers CB_NULL and answers every CB_COMPOUND's CB_SEQUENCE with NFS4ERR_DELAY. */
    private static final class DelayingClient implements RpcClientTransport {
        final AtomicInteger compounds = new AtomicInteger();

        @Override
        public CompletableFuture<XdrMessage> call(RpcCallInfo info, XdrMessage call) {
            call.release();
            // xid, REPLY, MSG_ACCEPTED, AUTH_NONE verifier, SUCCESS (RFC 5531 §9)
            String header = String.format("%08x", info.xid()) + "00000001 00000000 00000000 00000000 00000000";
            String results = "";
            if (info.procedure() == 1) {
                compounds.incrementAndGet();
                String delay = String.format("%08x", Nfs4Constants.NFS4ERR_DELAY);
                // CB_COMPOUND4res: status, empty tag, one result: CB_SEQUENCE's status
                results = delay + "00000000 00000001" + String.format("%08x", Nfs4Constants.OP_CB_SEQUENCE) + delay;
            }
            return CompletableFuture.completedFuture(XdrMessage.of(Unpooled.wrappedBuffer(Hex.decode(header
                    + results))));
        }

        @Override
        public String name() {
            return "delaying";
        }

        @Override
        public void close() {
        }
    }

    @Test
    void aSupersededProbeStopsRetryingAndTheLatestGoesOn() {
        List<Runnable> retries = new ArrayList<>();
        Callbacks callbacks = new Callbacks(new LogRateLimit(10, 5, TimeUnit.SECONDS, new AtomicLong()::get),
                (attempt, retry) -> retries.add(retry));
        ChannelAttrs4 attrs = new ChannelAttrs4(0, 4096, 4096, 0, 8, 1, -1);
        SessionTable.Session s = new SessionTable.Session(new byte[16], null, attrs, attrs, 0, 0x40000000);
        DelayingClient client = new DelayingClient();
        s.backchannel = client;

        callbacks.probe(s);
        assertThat(client.compounds).as("the first probe's CB_SEQUENCE").hasValue(1);
        assertThat(retries).as("its retry, after NFS4ERR_DELAY").hasSize(1);
        callbacks.probe(s); // the back channel bound again
        assertThat(client.compounds).hasValue(2);
        assertThat(retries).hasSize(2);

        retries.remove(0).run();
        assertThat(client.compounds).as("the superseded probe sends nothing more").hasValue(2);
        assertThat(retries).as("nor waits to").hasSize(1);

        retries.remove(0).run();
        assertThat(client.compounds).as("the latest probe retries").hasValue(3);
        assertThat(retries).hasSize(1);
        assertThat(callbacks.failed()).isZero();
    }

    @Test
    void aCbCompoundReplyCutShortCountsAsAFailedCallback() {
        // xid, REPLY, MSG_ACCEPTED, AUTH_NONE verifier, SUCCESS; CB_COMPOUND4res: NFS4_OK, empty tag,
        // one result, CB_SEQUENCE's opcode, and there the reply ends: no status
        byte[] reply = Hex.decode("00000000 00000001 00000000 00000000 00000000 00000000"
                + "00000000 00000000 00000001 0000000b");

        CallbackProbes.Outcome outcome = CallbackProbes.probe(io.netty.buffer.UnpooledByteBufAllocator.DEFAULT, reply);

        assertThat(outcome.answered()).as("CB_NULL only").isEqualTo(1);
        assertThat(outcome.failed()).as("the undecodable CB_SEQUENCE reply").isEqualTo(1);
        assertThat(outcome.closed()).isTrue();
    }
}
