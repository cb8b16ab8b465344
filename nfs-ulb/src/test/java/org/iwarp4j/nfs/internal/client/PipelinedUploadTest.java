package org.iwarp4j.nfs.internal.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.UnpooledByteBufAllocator;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;

/**
 * {@link PipelinedUpload} against a scripted server: what is written where, when the uncommitted
 * octets are written again FILE_SYNC, and that every chunk it allocated is released.
 */
class PipelinedUploadTest {

    private static final int WRITE_SIZE = 4096;

    /** Records the calls; a WRITE's reply is the verifier the server gives, a negative one a failed WRITE. */
    private static final class ScriptedServer implements PipelinedUpload.Writes<Long> {
        final List<Long> unstableOffsets = new ArrayList<>();
        final List<Long> fileSyncOffsets = new ArrayList<>();
        final List<Long> commits = new ArrayList<>();
        final ByteArrayOutputStream fileSyncData = new ByteArrayOutputStream();
        final List<ByteBuf> chunks = new ArrayList<>();
        long writeVerifier = 1;
        long commitVerifier = 1;
        int failWrite = -1;

        @Override
        public CompletableFuture<Long> writeUnstable(long offset, ByteBuf data) {
            chunks.add(data); // a duplicate: its reference count is the chunk's
            data.release();
            unstableOffsets.add(offset);
            return CompletableFuture.completedFuture(unstableOffsets.size() - 1 == failWrite ? -1L : writeVerifier);
        }

        @Override
        public long verifier(Long reply) {
            if (reply < 0) {
                throw new IllegalStateException("WRITE failed");
            }
            return reply;
        }

        @Override
        public long commit(long offset) {
            commits.add(offset);
            return commitVerifier;
        }

        @Override
        public void writeFileSync(long offset, ByteBuf data) {
            fileSyncOffsets.add(offset);
            fileSyncData.writeBytes(ByteBufUtil.getBytes(data));
            data.release();
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
        assertThat(server.fileSyncData.toByteArray()).isEqualTo(data);
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
