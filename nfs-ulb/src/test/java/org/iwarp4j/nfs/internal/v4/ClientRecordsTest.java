package org.iwarp4j.nfs.internal.v4;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HexFormat;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.iwarp4j.oncrpc.internal.LogRateLimit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The stable client records as a log: what one change writes, when the log is rewritten, and
 * what a crash or a failed write leaves (RFC 8881 §8.4.3: the server must know after a restart
 * which clients may reclaim).
 */
class ClientRecordsTest {

    @TempDir
    Path dir;

    private ClientRecords open(int cap) throws Exception {
        return ClientRecords.open(dir, cap, new LogRateLimit(10, 5, TimeUnit.SECONDS, () -> 0L));
    }

    private byte[] fileBytes() throws Exception {
        return Files.readAllBytes(dir.resolve(ClientRecords.FILE_NAME));
    }

    private List<String> fileLines() throws Exception {
        return Files.readAllLines(dir.resolve(ClientRecords.FILE_NAME), StandardCharsets.US_ASCII);
    }

    private static byte[] owner(int i) {
        return ("client-" + i).getBytes(StandardCharsets.US_ASCII);
    }

    /** A change as a COMPOUND makes it: in memory, then committed before the reply. */
    private static void add(ClientRecords records, byte[] owner) {
        records.add(owner);
        records.commit();
    }

    private static void remove(ClientRecords records, byte[] owner) {
        records.remove(owner);
        records.commit();
    }

    private static String hex(byte[] owner) {
        return HexFormat.of().formatHex(owner);
    }

    private static Set<ByteBuffer> owners(int... ids) {
        Set<ByteBuffer> s = new java.util.HashSet<>();
        for (int i : ids) {
            s.add(ByteBuffer.wrap(owner(i)));
        }
        return s;
    }

    /** The cost of a client's change does not grow with the records of other clients. */
    @Test
    void aChangeAppendsItsOneLineAndLeavesTheRestOfTheFileAlone() throws Exception {
        ClientRecords records = open(1024);
        for (int i = 0; i < 500; i++) {
            add(records, owner(i));
        }
        byte[] before = fileBytes();
        add(records, owner(500));
        byte[] added = fileBytes();
        assertThat(added).startsWith(before);
        assertThat(new String(added, before.length, added.length - before.length, StandardCharsets.US_ASCII))
                .isEqualTo("+" + hex(owner(500)) + "\n");

        remove(records, owner(7));
        byte[] removed = fileBytes();
        assertThat(removed).startsWith(added);
        assertThat(new String(removed, added.length, removed.length - added.length, StandardCharsets.US_ASCII))
                .isEqualTo("-" + hex(owner(7)) + "\n");
        assertThat(records.rewrites()).as("only the one at open").isEqualTo(1);

        remove(records, owner(7));
        add(records, owner(8));
        assertThat(fileBytes()).as("no change, nothing written").isEqualTo(removed);
    }

    @Test
    void theLogIsRewrittenAsTheLiveRecordsOnceItHoldsTwiceAsManyChangesAsRecords() throws Exception {
        ClientRecords records = open(16);
        add(records, owner(1));
        add(records, owner(2));
        int maxLines = 0;
        for (int i = 0; i < 1000; i++) {
            add(records, owner(3));
            remove(records, owner(3));
            maxLines = Math.max(maxLines, fileLines().size());
        }
        int threshold = ClientRecords.compactionThreshold(3);
        assertThat(maxLines).as("header, at most 3 rewritten records and a full log")
                .isLessThanOrEqualTo(1 + 3 + threshold);
        assertThat(records.rewrites()).isBetween(1 + 2002 / (threshold + 1), 1 + 2002 / threshold + 1);

        ClientRecords reopened = open(16);
        assertThat(reopened.previous()).isEqualTo(owners(1, 2));
        assertThat(fileLines()).as("a start rewrites the log").containsExactly(ClientRecords.HEADER,
                "+" + hex(owner(1)), "+" + hex(owner(2)));
    }

    /** A crash in the middle of an append leaves the line cut short; that change was never acknowledged. */
    @Test
    void aTornLastLineIsIgnoredAndEverythingBeforeItIsKept() throws Exception {
        String full = hex(owner(3));
        Files.writeString(dir.resolve(ClientRecords.FILE_NAME), ClientRecords.HEADER + "\n+" + hex(owner(1)) + "\n+"
                + hex(owner(2)) + "\n-" + hex(owner(1)) + "\n+" + full.substring(0, full.length() - 4));
        ClientRecords records = open(16);
        assertThat(records.previous()).as("the cut owner is not taken for a shorter one").isEqualTo(owners(2));
        assertThat(fileLines()).containsExactly(ClientRecords.HEADER, "+" + hex(owner(2)));
    }

    @Test
    void aListOfTheEarlierFormatIsReadAndRewrittenAsALog() throws Exception {
        Files.writeString(dir.resolve(ClientRecords.FILE_NAME), ClientRecords.LIST_HEADER + "\n" + hex(owner(1))
                + "\n" + hex(owner(2)) + "\n");
        ClientRecords records = open(16);
        assertThat(records.previous()).isEqualTo(owners(1, 2));
        assertThat(fileLines()).containsExactly(ClientRecords.HEADER, "+" + hex(owner(1)), "+" + hex(owner(2)));
    }

    @Test
    void aLogLargerThanTheCapAllowsIsIgnored() throws Exception {
        StringBuilder s = new StringBuilder(ClientRecords.HEADER).append('\n');
        while (s.length() <= ClientRecords.maxFileSize(2)) {
            s.append('+').append(hex(owner(1))).append('\n');
        }
        Files.writeString(dir.resolve(ClientRecords.FILE_NAME), s);
        assertThat(open(2).previous()).isEmpty();
    }

    @Test
    void aLogReplayedPastTheCapKeepsTheFirstOwnersAndTheirRemovals() throws Exception {
        Files.writeString(dir.resolve(ClientRecords.FILE_NAME), ClientRecords.HEADER + "\n+" + hex(owner(1)) + "\n+"
                + hex(owner(2)) + "\n+" + hex(owner(3)) + "\n-" + hex(owner(1)) + "\n+" + hex(owner(4)) + "\nbad\n");
        assertThat(open(2).previous()).isEqualTo(owners(2, 4));
    }

    /** A change that did not reach the disk is not left out for good: the next change rewrites the whole file. */
    @Test
    void aChangeThatCouldNotBeWrittenIsRepairedByTheNextOne() throws Exception {
        ClientRecords records = open(16);
        add(records, owner(1));
        Files.delete(dir.resolve(ClientRecords.FILE_NAME));
        add(records, owner(2));
        assertThat(dir.resolve(ClientRecords.FILE_NAME)).as("an append does not create the file").doesNotExist();
        add(records, owner(3));
        assertThat(records.rewrites()).isEqualTo(2);
        assertThat(fileLines()).containsExactly(ClientRecords.HEADER, "+" + hex(owner(1)), "+" + hex(owner(2)),
                "+" + hex(owner(3)));
        remove(records, owner(2));
        assertThat(fileLines()).as("appending again").hasSize(5).endsWith("-" + hex(owner(2)));
    }
    /**
     * Group commit: changes two threads made are written and forced once, by whichever commits
     * first; the other's commit finds its change on disk and forces nothing.
     */
    @Test
    void changesOfSeveralThreadsAreWrittenWithOneForce() throws Exception {
        ClientRecords records = open(16);
        long forces = records.forces();
        records.add(owner(1)); // this thread's change, not yet committed
        java.util.concurrent.ExecutorService other = java.util.concurrent.Executors.newSingleThreadExecutor();
        try {
            other.submit(() -> {
                records.add(owner(2));
                records.remove(owner(9)); // never recorded: no change
                records.commit();
            }).get(10, TimeUnit.SECONDS);
        } finally {
            other.shutdownNow();
        }
        assertThat(records.forces() - forces).isEqualTo(1);
        assertThat(fileLines()).containsExactly(ClientRecords.HEADER, "+" + hex(owner(1)), "+" + hex(owner(2)));
        records.commit();
        assertThat(records.forces() - forces).as("taken along by the other thread's commit").isEqualTo(1);
    }

    /**
     * While a commit waits for the disk, other threads change the records in memory: the write
     * holds no lock a change needs (a COMPOUND makes its changes under the server's state lock).
     */
    @Test
    void aChangeDoesNotWaitForAWriteInProgress() throws Exception {
        ClientRecords records = open(16);
        java.util.concurrent.CountDownLatch forcing = new java.util.concurrent.CountDownLatch(1);
        java.util.concurrent.CountDownLatch release = new java.util.concurrent.CountDownLatch(1);
        records.forcing((channel, metaData) -> {
            forcing.countDown();
            try {
                assertThat(release.await(10, TimeUnit.SECONDS)).isTrue();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            channel.force(metaData);
        });
        java.util.concurrent.ExecutorService writer = java.util.concurrent.Executors.newSingleThreadExecutor();
        try {
            java.util.concurrent.Future<?> commit = writer.submit(() -> add(records, owner(1)));
            assertThat(forcing.await(10, TimeUnit.SECONDS)).isTrue();
            records.add(owner(2));
            records.remove(owner(1));
            assertThat(records.size()).isEqualTo(1);
            assertThat(commit.isDone()).as("still forcing").isFalse();
            release.countDown();
            commit.get(10, TimeUnit.SECONDS);
            records.commit();
        } finally {
            release.countDown();
            writer.shutdownNow();
        }
        assertThat(fileLines()).containsExactly(ClientRecords.HEADER, "+" + hex(owner(1)), "+" + hex(owner(2)),
                "-" + hex(owner(1)));
    }
    /**
     * A request that finds its client recorded by another request whose line is not written yet
     * does not reply before it is: its commit writes that line (two OPENs of a new client on two
     * slots at once).
     */
    @Test
    void findingAnOwnerRecordedByAnotherRequestWaitsForItsLine() throws Exception {
        ClientRecords records = open(16);
        long forces = records.forces();
        records.add(owner(1)); // this thread's first OPEN: queued, not yet committed
        java.util.concurrent.ExecutorService other = java.util.concurrent.Executors.newSingleThreadExecutor();
        try {
            other.submit(() -> {
                records.add(owner(1)); // the second OPEN finds the owner recorded
                records.commit();
            }).get(10, TimeUnit.SECONDS);
        } finally {
            other.shutdownNow();
        }
        assertThat(records.forces() - forces).as("the second request's commit wrote the line").isEqualTo(1);
        assertThat(fileLines()).containsExactly(ClientRecords.HEADER, "+" + hex(owner(1)));
        records.commit();
        assertThat(records.forces() - forces).isEqualTo(1);
    }
}
