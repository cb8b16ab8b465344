package org.iwarp4j.ddp;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * {@link UntaggedQueue#placementTarget}: the octets of a posted buffer that an untagged segment's
 * payload would be placed into, only when every check of that placement would pass and the octets
 * lie in one piece of the scatter list; the queue is left as it was.
 */
class PlacementTargetTest {

    private static UntaggedHeader header(int msn, int mo) {
        return new UntaggedHeader(true, 0x43, 0, 0, msn, mo);
    }

    @Test
    void namesTheOctetsOfTheBufferOfItsMsnAndChangesNothing() throws DdpException {
        ByteBuf a = ByteBufAllocator.DEFAULT.directBuffer(1000).writeZero(1000);
        ByteBuf b = ByteBufAllocator.DEFAULT.directBuffer(1000).writeZero(1000);
        List<UntaggedMessage> delivered = new ArrayList<>();
        UntaggedQueue queue = new UntaggedQueue(0, 4, delivered::add);
        queue.post(ReceiveBuffer.of(1, List.of(new ScatterEntry(a, 0, 600))));
        queue.post(ReceiveBuffer.of(2, List.of(new ScatterEntry(a, 600, 100), new ScatterEntry(b, 10, 500))));
        try {
            ByteBuf t = queue.placementTarget(header(1, 100), 500);
            assertThat(t).isNotNull();
            assertThat(t.memoryAddress()).isEqualTo(a.memoryAddress() + 100);
            assertThat(t.capacity()).isEqualTo(500);
            t.release();
            ByteBuf second = queue.placementTarget(header(2, 150), 300);
            assertThat(second.memoryAddress()).as("MO 150 is 50 octets into the second piece")
                    .isEqualTo(b.memoryAddress() + 10 + 50);
            second.release();

            assertThat(queue.placementTarget(header(2, 50), 100)).as("spans two pieces").isNull();
            assertThat(queue.placementTarget(header(1, 500), 101)).as("message too long").isNull();
            assertThat(queue.placementTarget(header(3, 0), 10)).as("no buffer posted for MSN 3").isNull();
            assertThat(queue.placementTarget(header(0, 0), 10)).as("MSN out of range").isNull();
            assertThat(queue.placementTarget(new UntaggedHeader(true, 0x43, 0, 1, 1, 0), 10)).as("other QN")
                    .isNull();

            assertThat(queue.posted()).isEqualTo(2);
            assertThat(queue.nextMsn()).isEqualTo(1);
            assertThat(delivered).isEmpty();
        } finally {
            a.release();
            b.release();
        }
    }
}
