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
import java.util.function.IntBinaryOperator;
import org.junit.jupiter.api.Test;

/**
 * {@link PipelinedDownload} against a scripted file: the READs it sends, the octets it writes, what
 * follows a short reply, and that every reply's buffer is released, also those still in flight at
 * the end or at a failure.
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
        /** The octets the n-th READ (from 0) of this count returns, before the end of the file cuts it. */
        IntBinaryOperator served = (call, count) -> count;

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
            int n = Math.min(served.applyAsInt(offsets.size() - 1, count), content.length - from);
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

        @Override
        public RuntimeException protocolError(String what) {
            return new IllegalStateException("protocol error: " + what);
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

    /**
     * RFC 1813 §3.3.6, RFC 8881 §18.22.4: a short reply without eof is not the end. The rest of its
     * range is read next; the READs already in flight after it are taken as they come, not sent again.
     */
    @Test
    void aShortReplyWithoutEofIsFollowedByAReadOfTheRestOfItsRange() throws Exception {
        ScriptedFile file = new ScriptedFile(3 * READ_SIZE);
        file.served = (call, count) -> call == 0 ? count / 2 : count;
        ByteArrayOutputStream out = new ByteArrayOutputStream();

        assertThat(PipelinedDownload.run(file, READ_SIZE, 3, out)).isEqualTo(3 * READ_SIZE);

        assertThat(out.toByteArray()).isEqualTo(file.content);
        assertThat(file.offsets).containsExactly(0L, 4096L, 8192L, 2048L, 12288L, 16384L);
        assertThat(file.replies).allSatisfy(b -> assertThat(b.refCnt()).isZero());
    }

    /** Replies one octet at a time still make progress: each READ of the rest reads one more. */
    @Test
    void repliesOfOneOctetReadTheWholeFile() throws Exception {
        ScriptedFile file = new ScriptedFile(READ_SIZE + 10);
        file.served = (call, count) -> 1;
        ByteArrayOutputStream out = new ByteArrayOutputStream();

        assertTimeoutPreemptively(Duration.ofSeconds(20), () -> PipelinedDownload.run(file, READ_SIZE, 2, out));

        assertThat(out.toByteArray()).isEqualTo(file.content);
        assertThat(file.replies).allSatisfy(b -> assertThat(b.refCnt()).isZero());
    }

    /**
     * No octets without eof would have the client ask for the same range for ever (Linux fails such
     * a READ with EIO); more octets than asked for cannot be placed. Both are protocol errors.
     */
    @Test
    void aReplyOfNoOctetsWithoutEofOrOfMoreThanAskedFailsTheDownload() {
        ScriptedFile empty = new ScriptedFile(3 * READ_SIZE);
        empty.served = (call, count) -> call == 1 ? 0 : count;
        assertTimeoutPreemptively(Duration.ofSeconds(20), () -> {
            assertThatThrownBy(() -> PipelinedDownload.run(empty, READ_SIZE, 2, new ByteArrayOutputStream()))
                    .hasMessage("protocol error: a READ of 4096 octets at offset 4096 answered 0 octets without eof");
        });
        assertThat(empty.replies).allSatisfy(b -> assertThat(b.refCnt()).isZero());

        ScriptedFile more = new ScriptedFile(3 * READ_SIZE);
        more.served = (call, count) -> 2 * count;
        assertThatThrownBy(() -> PipelinedDownload.run(more, READ_SIZE, 2, new ByteArrayOutputStream()))
                .hasMessage("protocol error: a READ of 4096 octets at offset 0 answered 8192 octets without eof");
        assertThat(more.replies).allSatisfy(b -> assertThat(b.refCnt()).isZero());
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
