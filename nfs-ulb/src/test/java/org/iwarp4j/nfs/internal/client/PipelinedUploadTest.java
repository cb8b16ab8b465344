package org.iwarp4j.nfs.internal.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.UnpooledByteBufAllocator;
import java.io.ByteArrayInputStream;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.function.LongUnaryOperator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * {@link PipelinedUpload} against a scripted server: what is written where, when the uncommitted
 * octets are written again FILE_SYNC, what follows a short WRITE, and that every chunk it allocated
 * is released.
 */
class PipelinedUploadTest {

    private static final int WRITE_SIZE = 4096;

    /** A WRITE's reply: the count and verifier the server gives, or a failure. */
    private record Reply(long count, long verifier, boolean failed) {
    }

    /** Records the calls and the octets each kind of WRITE wrote where. */
    private static final class ScriptedServer implements PipelinedUpload.Writes<Reply> {
        final List<Long> unstableOffsets = new ArrayList<>();
        final List<Long> fileSyncOffsets = new ArrayList<>();
        final List<Long> commits = new ArrayList<>();
        final byte[] unstable = new byte[1 << 16];
        final byte[] fileSync = new byte[1 << 16];
        final List<ByteBuf> chunks = new ArrayList<>();
        long writeVerifier = 1;
        long commitVerifier = 1;
        int failWrite = -1;
        /** The count a WRITE of this many octets answers; the server writes that many (all, unless set). */
        LongUnaryOperator count = sent -> sent;

        @Override
        public CompletableFuture<Reply> writeUnstable(long offset, ByteBuf data) {
            long n = write(data, offset, unstable);
            unstableOffsets.add(offset);
            return CompletableFuture.completedFuture(new Reply(n, writeVerifier,
                    unstableOffsets.size() - 1 == failWrite));
        }

        /** Writes the octets the count says into {@code file}; returns the count. */
        private long write(ByteBuf data, long offset, byte[] file) {
            chunks.add(data); // a duplicate or slice: its reference count is (or ends with) the chunk's
            long n = count.applyAsLong(data.readableBytes());
            data.getBytes(data.readerIndex(), file, (int) offset, (int) Math.min(n, data.readableBytes()));
            data.release();
            return n;
        }

        @Override
        public PipelinedUpload.Written written(Reply reply) {
            if (reply.failed()) {
                throw new IllegalStateException("WRITE failed");
            }
            return new PipelinedUpload.Written(reply.count(), reply.verifier());
        }

        @Override
        public long commit(long offset) {
            commits.add(offset);
            return commitVerifier;
        }

        @Override
        public long writeFileSync(long offset, ByteBuf data) {
            fileSyncOffsets.add(offset);
            return write(data, offset, fileSync);
        }

        @Override
        public RuntimeException protocolError(String what) {
            return new IllegalStateException("protocol error: " + what);
        }
    }

    private static byte[] random(int size) {
        byte[] data = new byte[size];
        new Random(size).nextBytes(data);
        return data;
    }

    @Test
    void writesUnstableChunksAtTheirOffsetsAndCommitsOnceAtTheEnd() throws Exception {
        byte[] data = random(2 * WRITE_SIZE + 100);
        ScriptedServer server = new ScriptedServer();

        long written = PipelinedUpload.run(server, UnpooledByteBufAllocator.DEFAULT, WRITE_SIZE, 2,
                new ByteArrayInputStream(data));

        assertThat(written).isEqualTo(data.length);
        assertThat(server.unstableOffsets).containsExactly(0L, 4096L, 8192L);
        assertThat(server.commits).containsExactly(0L);
        assertThat(server.fileSyncOffsets).as("same verifier: nothing written again").isEmpty();
        assertThat(server.chunks).allSatisfy(c -> assertThat(c.refCnt()).isZero());
    }

    /** RFC 1813 §3.3.7, RFC 8881 §18.32.3: another verifier at COMMIT means the server may have lost the WRITEs. */
    @Test
    void aVerifierChangedAtCommitWritesTheUncommittedOctetsAgainFileSync() throws Exception {
        byte[] data = random(2 * WRITE_SIZE + 100);
        ScriptedServer server = new ScriptedServer();
        server.commitVerifier = 2;

        assertThat(PipelinedUpload.run(server, UnpooledByteBufAllocator.DEFAULT, WRITE_SIZE, 2,
                new ByteArrayInputStream(data))).isEqualTo(data.length);

        assertThat(server.fileSyncOffsets).containsExactly(0L, 4096L, 8192L);
        assertThat(Arrays.copyOf(server.fileSync, data.length)).isEqualTo(data);
        assertThat(server.chunks).allSatisfy(c -> assertThat(c.refCnt()).isZero());
    }

    @Test
    void aFailedWriteEndsTheUploadWithItsErrorAndReleasesEveryChunk() {
        ScriptedServer server = new ScriptedServer();
        server.failWrite = 1;

        assertThatThrownBy(() -> PipelinedUpload.run(server, UnpooledByteBufAllocator.DEFAULT, WRITE_SIZE, 1,
                new ByteArrayInputStream(random(3 * WRITE_SIZE)))).hasMessage("WRITE failed");

        assertThat(server.commits).as("no COMMIT after a failed WRITE").isEmpty();
        assertThat(server.chunks).isNotEmpty().allSatisfy(c -> assertThat(c.refCnt()).isZero());
    }

    /**
     * RFC 1813 §3.3.7, RFC 8881 §18.32.3: a WRITE's count may be less than the octets it carried;
     * the rest is written from where the server stopped, and the COMMIT comes after all of it.
     */
    @Test
    void shortWritesAreFollowedByWritesOfTheRestUntilTheChunkIsWritten() throws Exception {
        byte[] data = random(2 * WRITE_SIZE + 100);
        ScriptedServer server = new ScriptedServer();
        server.count = sent -> Math.min(sent, 1500);

        assertThat(PipelinedUpload.run(server, UnpooledByteBufAllocator.DEFAULT, WRITE_SIZE, 2,
                new ByteArrayInputStream(data))).isEqualTo(data.length);

        assertThat(Arrays.copyOf(server.unstable, data.length)).as("every octet written").isEqualTo(data);
        assertThat(server.unstableOffsets).containsExactly(0L, 4096L, 1500L, 3000L, 8192L, 5596L, 7096L);
        assertThat(server.commits).containsExactly(0L);
        assertThat(server.chunks).allSatisfy(c -> assertThat(c.refCnt()).isZero());
    }

    /** A short FILE_SYNC rewrite (after the verifier changed) is followed by the rest too. */
    @Test
    void shortFileSyncRewritesAreFollowedByWritesOfTheRest() throws Exception {
        byte[] data = random(WRITE_SIZE + 100);
        ScriptedServer server = new ScriptedServer();
        server.commitVerifier = 2;
        server.count = sent -> Math.min(sent, 3000);

        assertThat(PipelinedUpload.run(server, UnpooledByteBufAllocator.DEFAULT, WRITE_SIZE, 2,
                new ByteArrayInputStream(data))).isEqualTo(data.length);

        assertThat(Arrays.copyOf(server.fileSync, data.length)).isEqualTo(data);
        assertThat(server.fileSyncOffsets).containsExactly(0L, 3000L, 4096L);
        assertThat(server.chunks).allSatisfy(c -> assertThat(c.refCnt()).isZero());
    }

    /**
     * A WRITE that wrote nothing would have the client send the same octets for ever; it is a
     * protocol error, as is a count above the octets sent. Nothing is committed.
     */
    @ParameterizedTest
    @ValueSource(longs = {0, WRITE_SIZE + 1})
    void aWriteAnsweredWithACountOfNothingOrMoreThanSentFailsTheUpload(long count) {
        ScriptedServer server = new ScriptedServer();
        server.count = sent -> count;

        assertTimeoutPreemptively(Duration.ofSeconds(20), () -> {
            assertThatThrownBy(() -> PipelinedUpload.run(server, UnpooledByteBufAllocator.DEFAULT, WRITE_SIZE, 2,
                    new ByteArrayInputStream(random(3 * WRITE_SIZE))))
                    .hasMessage("protocol error: a WRITE of 4096 octets at offset 0 answered count " + count);
        });

        assertThat(server.commits).isEmpty();
        assertThat(server.chunks).isNotEmpty().allSatisfy(c -> assertThat(c.refCnt()).isZero());
    }

    @Test
    void aWriteSizeOfNothingIsRefused() {
        assertThatThrownBy(() -> PipelinedUpload.run(new ScriptedServer(), UnpooledByteBufAllocator.DEFAULT, 0, 2,
                new ByteArrayInputStream(random(10)))).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void anEmptyStreamWritesAndCommitsNothing() throws Exception {
        ScriptedServer server = new ScriptedServer();

        assertThat(PipelinedUpload.run(server, UnpooledByteBufAllocator.DEFAULT, WRITE_SIZE, 2,
                new ByteArrayInputStream(new byte[0]))).isZero();

        assertThat(server.unstableOffsets).isEmpty();
        assertThat(server.commits).isEmpty();
    }
}
