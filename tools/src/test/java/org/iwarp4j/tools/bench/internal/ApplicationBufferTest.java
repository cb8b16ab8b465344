package org.iwarp4j.tools.bench.internal;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import org.junit.jupiter.api.Test;

/**
 * The "with copy" TCP baseline's application buffer: every octet read is copied in, cyclically,
 * and the read buffer is left as it was; its size is the RDMA run's registered area (perftest's
 * BUFF_SIZE: the largest message, at least a page).
 */
class ApplicationBufferTest {

    @Test
    void everyOctetIsCopiedInCyclically() {
        ApplicationBuffer app = new ApplicationBuffer(8);
        ByteBuf in = Unpooled.wrappedBuffer(new byte[] {1, 2, 3, 4, 5});
        try {
            app.copy(in);
            assertThat(in.readerIndex()).isZero();
            ByteBuf next = Unpooled.wrappedBuffer(new byte[] {6, 7, 8, 9, 10});
            app.copy(next);
            next.release();
            ByteBuf memory = app.memory();
            byte[] octets = new byte[8];
            memory.getBytes(0, octets);
            assertThat(octets).containsExactly(9, 10, 3, 4, 5, 6, 7, 8);
        } finally {
            in.release();
            app.release();
        }
    }

    @Test
    void itIsAsLargeAsTheRdmaRegionArea() {
        assertThat(TcpMode.applicationBuffer(65536)).isEqualTo(65536);
        assertThat(TcpMode.applicationBuffer(2)).isEqualTo(4096);
    }
}
