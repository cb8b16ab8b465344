package org.iwarp4j.tools.nfs;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.util.zip.CRC32C;
import org.junit.jupiter.api.Test;

/** The benchmark file's content: a function of the offset alone, and misplaced data changes its CRC32C. */
class FilePatternTest {

    private static byte[] range(FilePattern p, long offset, int length) {
        ByteBuf b = Unpooled.buffer(length);
        try {
            p.write(b, offset, length);
            byte[] bytes = new byte[length];
            b.readBytes(bytes);
            return bytes;
        } finally {
            b.release();
        }
    }

    @Test
    void anyChunkingGivesTheSameOctetsAndCrc() {
        FilePattern p = new FilePattern(42);
        int size = 3 * FilePattern.PERIOD + 777;
        byte[] whole = range(p, 0, size);
        for (int chunk : new int[] {4096, 65536, 1 << 20, 1000}) {
            CRC32C crc = new CRC32C();
            for (long off = 0; off < size; off += chunk) {
                int n = (int) Math.min(chunk, size - off);
                byte[] part = range(p, off, n);
                assertThat(part).isEqualTo(java.util.Arrays.copyOfRange(whole, (int) off, (int) off + n));
                crc.update(part);
            }
            assertThat((int) crc.getValue()).as("chunk %d", chunk).isEqualTo(p.crc32c(size));
        }
    }

    @Test
    void chunksAtOtherOffsetsDiffer() {
        FilePattern p = new FilePattern(7);
        for (int shift : new int[] {4096, 65536, 1 << 20, 2 << 20}) {
            assertThat(range(p, shift, 4096)).as("shift %d", shift).isNotEqualTo(range(p, 0, 4096));
        }
        assertThat(range(new FilePattern(8), 0, 64)).as("another seed").isNotEqualTo(range(p, 0, 64));
    }
}
