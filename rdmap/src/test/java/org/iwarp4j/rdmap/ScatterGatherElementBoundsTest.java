package org.iwarp4j.rdmap;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;
import org.iwarp4j.mpa.MpaSettings;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A scatter/gather element names octets [offset, offset + length) of a region, and no region is
 * longer than a {@link ByteBuf} can be, 2^31 - 1 octets: an element that ends past that can name
 * no registered memory at all and is refused when it is made, as Java's own index checks refuse an
 * impossible range. One that ends past its own region, but not past 2^31 - 1, completes its work
 * request {@link WorkCompletionStatus#LOCAL_LENGTH_ERROR} at posting, receive, Send and Read alike,
 * and the queue pair goes on. The bounds used to be checked as {@code offset + length >
 * region.length()}, which an offset near {@code Long.MAX_VALUE} overflowed: the receive threw in
 * the work queue's drain and never completed, the Send failed the queue pair FATAL, the Read asked
 * the peer for a wrapped sink offset.
 */
@Timeout(60)
class ScatterGatherElementBoundsTest {

    private static final int REGION = 64;
    /** An offset near Long.MAX_VALUE: offset + length overflows a long. */
    private static final long OVERFLOWING = Long.MAX_VALUE - 4;
    /** The last offset at which an 8-octet element still fits in 2^31 - 1 octets. */
    private static final long LAST_POSSIBLE = Integer.MAX_VALUE - 8;

    private final ByteBuf serverMemory = ByteBufAllocator.DEFAULT.directBuffer(REGION).writeZero(REGION);
    private final ByteBuf clientMemory = ByteBufAllocator.DEFAULT.directBuffer(REGION).writeZero(REGION);
    private RdmaPair pair;
    private MemoryRegion server;
    private MemoryRegion client;

    @BeforeEach
    void connect() throws Exception {
        MemoryRegion[] registered = new MemoryRegion[1];
        pair = new RdmaPair(MpaSettings.builder().build(), s -> registered[0] = s.register(serverMemory, RdmaPair.ALL),
                c -> { });
        server = registered[0];
        client = pair.client.register(clientMemory, RdmaPair.ALL);
        clientMemory.setCharSequence(0, "hello", StandardCharsets.US_ASCII);
    }

    @AfterEach
    void close() throws Exception {
        try {
            pair.close();
        } finally {
            serverMemory.release();
            clientMemory.release();
        }
    }

    @Test
    void anElementThatEndsPastTheLargestPossibleRegionIsRefusedWhenItIsMade() {
        assertThatIllegalArgumentException().isThrownBy(() -> client.sge(OVERFLOWING, 8))
                .withMessageContaining(String.valueOf(OVERFLOWING));
        assertThatIllegalArgumentException().isThrownBy(() -> new ScatterGatherElement(client, OVERFLOWING, 8));
        assertThatIllegalArgumentException().isThrownBy(() -> client.sge(Integer.MAX_VALUE + 1L, 0));
        assertThatIllegalArgumentException().isThrownBy(() -> client.sge(LAST_POSSIBLE + 1, 8));
        assertThatIllegalArgumentException().isThrownBy(() -> client.sge(-1, 8));
        assertThatIllegalArgumentException().isThrownBy(() -> client.sge(0, -1));
        assertThat(client.sge(LAST_POSSIBLE, 8).offset()).isEqualTo(LAST_POSSIBLE);
        assertThat(client.sge(Integer.MAX_VALUE, 0).length()).isZero();
    }

    @Test
    void aReceivePastItsRegionCompletesLocalLengthErrorAndTheNextReceiveTakesTheSend() throws Exception {
        assertThatIllegalArgumentException().isThrownBy(() -> server.sge(OVERFLOWING, 8));
        pair.server.postReceive(new ReceiveWorkRequest(1, server.sge(LAST_POSSIBLE, 8)),
                new ReceiveWorkRequest(2, server.sge(REGION - 8, 9)),
                new ReceiveWorkRequest(3, server.sge(8, 8)));
        expect(pair.serverCq, 1, WorkCompletionStatus.LOCAL_LENGTH_ERROR);
        expect(pair.serverCq, 2, WorkCompletionStatus.LOCAL_LENGTH_ERROR);

        pair.client.postSend(SendWorkRequest.send(10, client.sge(0, 5)));
        expect(pair.clientCq, 10, WorkCompletionStatus.SUCCESS);
        expect(pair.serverCq, 3, WorkCompletionStatus.SUCCESS);
        assertThat(serverMemory.toString(8, 5, StandardCharsets.US_ASCII)).isEqualTo("hello");
        assertThat(pair.server.state()).isEqualTo(QueuePairState.RTS);
    }

    @Test
    void aSendGatheringPastItsRegionCompletesLocalLengthErrorAndTheNextSendGoesOut() throws Exception {
        assertThatIllegalArgumentException().isThrownBy(() -> client.sge(OVERFLOWING, 8));
        pair.server.postReceive(new ReceiveWorkRequest(1, server.sge(0, 16)));
        // A receive posted from this thread takes effect on the server's one event loop, maybe after
        // the client's Send is read there: a task queued there behind the post's drain waits for it.
        pair.serverRnic.eventLoops().next().submit(() -> null).get(RdmaPair.WAIT_SECONDS, TimeUnit.SECONDS);
        pair.client.postSend(SendWorkRequest.send(10, client.sge(LAST_POSSIBLE, 8)),
                SendWorkRequest.send(11, client.sge(0, 5)));
        expect(pair.clientCq, 10, WorkCompletionStatus.LOCAL_LENGTH_ERROR);
        expect(pair.clientCq, 11, WorkCompletionStatus.SUCCESS);
        WorkCompletion received = expect(pair.serverCq, 1, WorkCompletionStatus.SUCCESS);
        assertThat(received.byteLength()).as("the refused Send sent nothing").isEqualTo(5);
        assertThat(pair.client.state()).isEqualTo(QueuePairState.RTS);
    }

    @Test
    void aReadIntoASinkPastItsRegionCompletesLocalLengthErrorAndTheNextReadIsPlaced() throws Exception {
        assertThatIllegalArgumentException().isThrownBy(() -> client.sge(OVERFLOWING, 8));
        serverMemory.setCharSequence(0, "world", StandardCharsets.US_ASCII);
        pair.client.postSend(SendWorkRequest.rdmaRead(10, server.stag(), server.baseTaggedOffset(),
                        client.sge(LAST_POSSIBLE, 8)),
                SendWorkRequest.rdmaRead(11, server.stag(), server.baseTaggedOffset(), client.sge(16, 5)));
        expect(pair.clientCq, 10, WorkCompletionStatus.LOCAL_LENGTH_ERROR);
        expect(pair.clientCq, 11, WorkCompletionStatus.SUCCESS);
        assertThat(clientMemory.toString(16, 5, StandardCharsets.US_ASCII)).isEqualTo("world");
        assertThat(pair.client.state()).isEqualTo(QueuePairState.RTS);
    }

    /** The next completion of {@code cq}, which must be work request {@code id}'s, with {@code status}. */
    private static WorkCompletion expect(CompletionQueue cq, long id, WorkCompletionStatus status)
            throws InterruptedException {
        WorkCompletion c = RdmaPair.next(cq);
        assertThat(c.workRequestId()).isEqualTo(id);
        assertThat(c.status()).as(c.toString()).isEqualTo(status);
        return c;
    }
}
