package org.iwarp4j.nfs.internal.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.io.ByteArrayOutputStream;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;

/**
 * {@link PipelinedDownload} against a scripted file: the READs it sends, the octets it writes, and
 * that every reply's buffer is released, also those still in flight at the end or at a failure.
 */
class PipelinedDownloadTest {

    private static final int READ_SIZE = 4096;

    private record Reply(ByteBuf data, boolean eof, boolean failed) {
    }

    private static final class ScriptedFile implements PipelinedDownload.Reads<Reply> {
        final byte[] content;
        final List<Long> offsets = new ArrayList<>();
        final List<ByteBuf> replies = new ArrayList<>();
        long failAt = -1;

        /** A file of {@code size} random octets. */
        ScriptedFile(int size) {
            content = new byte[size];
            new Random(size).nextBytes(content);
        }

        @Override
        public CompletableFuture<Reply> read(long offset, int count) {
            offsets.add(offset);
            if (offsets.size() > 100_000) {
                // a client that would READ for ever fails here instead of filling the heap
                return CompletableFuture.failedFuture(new IllegalStateException("READ after READ"));
            }
            int from = (int) Math.min(offset, content.length);
            int n = Math.min(count, content.length - from);
            ByteBuf data = Unpooled.buffer(n).writeBytes(content, from, n); // a real buffer even when empty
            replies.add(data);
            return CompletableFuture.completedFuture(new Reply(data, from + n == content.length, offset == failAt));
        }

        @Override
        public ByteBuf data(Reply reply) {
            if (reply.failed()) {
                reply.data().release();
                throw new IllegalStateException("READ failed");
            }
            return reply.data();
        }

        @Override
        public boolean eof(Reply reply) {
            return reply.eof();
        }

        @Override
        public void release(Reply reply) {
            reply.data().release();
        }
    }

    @Test
    void readsInOffsetOrderUntilEofAndReleasesTheReadsBeyondIt() throws Exception {
        ScriptedFile file = new ScriptedFile(2 * READ_SIZE + 1808);
        byte[] content = file.content;
        ByteArrayOutputStream out = new ByteArrayOutputStream();

        assertThat(PipelinedDownload.run(file, READ_SIZE, 3, out)).isEqualTo(content.length);

        assertThat(out.toByteArray()).isEqualTo(content);
        assertThat(file.offsets).as("a window of three READs, refilled as replies are taken")
                .containsExactly(0L, 4096L, 8192L, 12288L, 16384L);
        assertThat(file.replies).allSatisfy(b -> assertThat(b.refCnt()).isZero());
    }

    @Test
    void aFullReplyWithEofEndsTheDownload() throws Exception {
        ScriptedFile file = new ScriptedFile(READ_SIZE);
        byte[] content = file.content;
        ByteArrayOutputStream out = new ByteArrayOutputStream();

        assertThat(PipelinedDownload.run(file, READ_SIZE, 1, out)).isEqualTo(READ_SIZE);

        assertThat(out.toByteArray()).isEqualTo(content);
        assertThat(file.offsets).containsExactly(0L);
        assertThat(file.replies).allSatisfy(b -> assertThat(b.refCnt()).isZero());
    }

    @Test
    void aFailedReadEndsTheDownloadWithItsErrorAndReleasesEveryReply() {
        ScriptedFile file = new ScriptedFile(8 * READ_SIZE);
        file.failAt = READ_SIZE;

        assertThatThrownBy(() -> PipelinedDownload.run(file, READ_SIZE, 4, new ByteArrayOutputStream()))
                .hasMessage("READ failed");

        assertThat(file.replies).hasSize(5).allSatisfy(b -> assertThat(b.refCnt()).isZero());
    }

    /** A read size of 0 (a server's FSINFO of 0, taken as it was) would READ nothing for ever. */
    @Test
    void aReadSizeOfNothingIsRefused() {
        ScriptedFile file = new ScriptedFile(READ_SIZE);
        assertTimeoutPreemptively(Duration.ofSeconds(20), () -> {
            assertThatThrownBy(() -> PipelinedDownload.run(file, 0, 2, new ByteArrayOutputStream()))
                    .isInstanceOf(IllegalArgumentException.class);
        });
        assertThat(file.replies).allSatisfy(b -> assertThat(b.refCnt()).isZero());
    }
}
