package org.iwarp4j.nfs.internal.client;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** {@link DirectoryListing}: the cookie and verifier each request carries, and what is left out. */
class DirectoryListingTest {

    private record Entry(String name, long cookie) {
    }

    @Test
    void eachRequestCarriesTheLastCookieAndVerifierUntilEof() {
        List<long[]> requests = new ArrayList<>();
        List<Entry> entries = DirectoryListing.readAll((cookie, verifier) -> {
            requests.add(new long[] {cookie, verifier});
            return requests.size() == 1
                    ? new DirectoryListing.Page<>(List.of(new Entry(".", 1), new Entry("..", 2), new Entry("a", 3)),
                            77, false)
                    : new DirectoryListing.Page<>(List.of(new Entry("b", 9)), 78, true);
        }, Entry::name, Entry::cookie);

        assertThat(entries).extracting(Entry::name).containsExactly("a", "b");
        assertThat(requests).containsExactly(new long[] {0, 0}, new long[] {3, 77});
    }

    @Test
    void aPageWithoutEntriesEndsTheListingEvenWithoutEof() {
        List<Entry> entries = DirectoryListing.readAll((cookie, verifier) -> new DirectoryListing.Page<>(List.of(),
                5, false), Entry::name, Entry::cookie);

        assertThat(entries).isEmpty();
    }
}
