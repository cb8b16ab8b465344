package org.iwarp4j.nfs.internal.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import org.junit.jupiter.api.Test;

/**
 * {@link DirectoryListing}: the cookie and verifier each request carries, what is left out, and
 * that a server's replies cannot keep it listing for ever.
 */
class DirectoryListingTest {

    private record Entry(String name, long cookie) {
    }

    private static final Function<String, RuntimeException> PROTOCOL_ERROR =
            what -> new IllegalStateException("protocol error: " + what);

    private static List<Entry> readAll(DirectoryListing.PageReader<Entry> reader) {
        return DirectoryListing.readAll(reader, Entry::name, Entry::cookie, PROTOCOL_ERROR);
    }

    /**
     * A server that goes on with {@code pages} (cookie asked → reply, none eof) for ever, except
     * that it gives up after 10,000 replies with an empty eof one, so that a client that would
     * list for ever ends with a listing instead of filling the heap.
     */
    private static DirectoryListing.PageReader<Entry> endless(Map<Long, List<Entry>> pages) {
        int[] replies = {0};
        return (cookie, verifier) -> ++replies[0] > 10_000 ? new DirectoryListing.Page<>(List.of(), 1, true)
                : new DirectoryListing.Page<>(pages.get(cookie), 1, false);
    }

    @Test
    void eachRequestCarriesTheLastCookieAndVerifierUntilEof() {
        List<long[]> requests = new ArrayList<>();
        List<Entry> entries = readAll((cookie, verifier) -> {
            requests.add(new long[] {cookie, verifier});
            return requests.size() == 1
                    ? new DirectoryListing.Page<>(List.of(new Entry(".", 1), new Entry("..", 2), new Entry("a", 3)),
                            77, false)
                    : new DirectoryListing.Page<>(List.of(new Entry("b", 9)), 78, true);
        });

        assertThat(entries).extracting(Entry::name).containsExactly("a", "b");
        assertThat(requests).containsExactly(new long[] {0, 0}, new long[] {3, 77});
    }

    @Test
    void entriesSharingACookieWithinAReplyAreListed() {
        List<Entry> entries = readAll((cookie, verifier) -> cookie == 0
                ? new DirectoryListing.Page<>(List.of(new Entry("a", 5), new Entry("b", 5)), 1, false)
                : new DirectoryListing.Page<>(List.of(new Entry("c", 9)), 1, true));

        assertThat(entries).extracting(Entry::name).containsExactly("a", "b", "c");
    }

    /**
     * RFC 1813 §3.3.16, RFC 8881 §18.23.4: a server that cannot fit an entry answers TOOSMALL. A
     * reply with none and without eof says neither where to go on nor that the listing is over.
     */
    @Test
    void aReplyWithoutEntriesAndWithoutEofFailsTheListing() {
        assertTimeoutPreemptively(Duration.ofSeconds(20), () -> {
            assertThatThrownBy(() -> readAll(endless(Map.of(0L, List.of()))))
                    .hasMessage("protocol error: a reply after cookie 0 with no entry and without eof");
        });
    }

    /** A listing that comes back to a cookie it went on from loops (Linux: "directory contains a readdir loop"). */
    @Test
    void aListingThatComesBackToACookieFailsInsteadOfListingForEver() {
        Map<Long, List<Entry>> pages = Map.of(0L, List.of(new Entry("a", 3)), 3L, List.of(new Entry("b", 7)),
                7L, List.of(new Entry("c", 8), new Entry("d", 3)));

        assertTimeoutPreemptively(Duration.ofSeconds(20), () -> {
            assertThatThrownBy(() -> readAll(endless(pages)))
                    .hasMessage("protocol error: cookie 3 again after 4 entries: the listing loops");
        });
    }

    @Test
    void aReplyThatEndsOnTheCookieItWasAskedForFailsTheListing() {
        assertTimeoutPreemptively(Duration.ofSeconds(20), () -> {
            assertThatThrownBy(() -> readAll(endless(Map.of(0L, List.of(new Entry(".", 5)),
                    5L, List.of(new Entry("..", 5))))))
                    .hasMessage("protocol error: cookie 5 again after 2 entries: the listing loops");
        });
    }

    /** New cookies for ever cannot be told from a huge directory; the bound on entries ends them. */
    @Test
    void moreEntriesThanTheBoundFailTheListing() {
        long[] next = {0};
        DirectoryListing.PageReader<Entry> inventing = (cookie, verifier) -> ++next[0] > 10_000
                ? new DirectoryListing.Page<>(List.of(), 1, true) // gives up, as endless() does
                : new DirectoryListing.Page<>(List.of(new Entry("e" + next[0], next[0] + 10)), 1, false);

        assertTimeoutPreemptively(Duration.ofSeconds(20), () -> {
            assertThatThrownBy(() -> DirectoryListing.readAll(inventing, Entry::name, Entry::cookie, PROTOCOL_ERROR,
                    1000)).hasMessage("protocol error: more than 1000 entries, the most a listing holds");
        });
    }
}
