package org.iwarp4j.oncrpc.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.InetAddress;
import org.junit.jupiter.api.Test;

/** The duplicate request cache alone: what counts as a retransmission, and its bounds. */
class DuplicateRequestCacheTest {

    private static final long SECOND = 1_000_000_000L;
    private static final InetAddress HOST = InetAddress.getLoopbackAddress();

    private static DuplicateRequestCache.Key key(int xid) {
        return new DuplicateRequestCache.Key(HOST, xid, 100003, 3, 12, 40, 0x1234);
    }

    private static DuplicateRequestCache.New first(DuplicateRequestCache cache, DuplicateRequestCache.Key key, long now) {
        DuplicateRequestCache.Lookup seen = cache.begin(key, now);
        assertThat(seen).as("first transmission of %s", key).isInstanceOf(DuplicateRequestCache.New.class);
        return (DuplicateRequestCache.New) seen;
    }

    private static DuplicateRequestCache.Duplicate again(DuplicateRequestCache cache, DuplicateRequestCache.Key key,
                                                         long now) {
        DuplicateRequestCache.Lookup seen = cache.begin(key, now);
        assertThat(seen).as("retransmission of %s", key).isInstanceOf(DuplicateRequestCache.Duplicate.class);
        return (DuplicateRequestCache.Duplicate) seen;
    }

    @Test
    void aRetransmissionWaitsForTheFirstReplyAndLaterOnesGetItAtOnce() {
        DuplicateRequestCache cache = new DuplicateRequestCache(16, 100, 120 * SECOND);
        DuplicateRequestCache.New call = first(cache, key(1), 0);
        DuplicateRequestCache.Duplicate during = again(cache, key(1), 1);
        assertThat(during.answered()).isFalse();
        assertThat(during.reply()).isNotDone();
        cache.done(call, new byte[] {1, 2, 3});
        assertThat(during.reply()).isDone();
        assertThat(during.reply().getNow(null)).containsExactly(1, 2, 3);
        DuplicateRequestCache.Duplicate after = again(cache, key(1), 2);
        assertThat(after.answered()).isTrue();
        assertThat(after.reply()).isDone();
        assertThat(after.reply().getNow(null)).containsExactly(1, 2, 3);
        assertThat(cache.size()).isEqualTo(1);
    }

    @Test
    void everyPartOfTheKeyTellsCallsApart() {
        DuplicateRequestCache cache = new DuplicateRequestCache(16, 100, 120 * SECOND);
        first(cache, key(1), 0);
        first(cache, key(2), 0);
        first(cache, new DuplicateRequestCache.Key("other host", 1, 100003, 3, 12, 40, 0x1234), 0);
        first(cache, new DuplicateRequestCache.Key(HOST, 1, 100005, 3, 12, 40, 0x1234), 0);
        first(cache, new DuplicateRequestCache.Key(HOST, 1, 100003, 2, 12, 40, 0x1234), 0);
        first(cache, new DuplicateRequestCache.Key(HOST, 1, 100003, 3, 13, 40, 0x1234), 0);
        first(cache, new DuplicateRequestCache.Key(HOST, 1, 100003, 3, 12, 44, 0x1234), 0);
        first(cache, new DuplicateRequestCache.Key(HOST, 1, 100003, 3, 12, 40, 0x1235), 0);
        again(cache, key(1), 0);
        assertThat(cache.size()).isEqualTo(8);
    }

    @Test
    void theOldestCallIsForgottenWhenTheCacheIsFull() {
        DuplicateRequestCache cache = new DuplicateRequestCache(3, 100, 120 * SECOND);
        first(cache, key(1), 0);
        DuplicateRequestCache.Duplicate waiting = again(cache, key(1), 0);
        first(cache, key(2), 1);
        first(cache, key(3), 2);
        first(cache, key(4), 3);
        assertThat(cache.size()).isEqualTo(3);
        assertThat(waiting.reply()).as("a retransmission of a forgotten call is not left waiting")
                .isCompletedWithValue(null);
        first(cache, key(1), 4); // forgotten: executed as new (and key 2 goes)
        again(cache, key(3), 5);
        again(cache, key(4), 5);
        first(cache, key(2), 6);
    }

    @Test
    void callsAreForgottenAtTheEndOfTheirLifetime() {
        DuplicateRequestCache cache = new DuplicateRequestCache(16, 100, 120 * SECOND);
        cache.done(first(cache, key(1), 0), new byte[] {9});
        cache.done(first(cache, key(2), 60 * SECOND), new byte[] {8});
        again(cache, key(1), 120 * SECOND - 1);
        first(cache, key(1), 120 * SECOND);
        again(cache, key(2), 120 * SECOND);
        first(cache, key(2), 180 * SECOND);
    }

    @Test
    void aReplyTooLongToKeepOrNoneAtAllIsForgottenAndItsWaitingRetransmissionGetsNull() {
        DuplicateRequestCache cache = new DuplicateRequestCache(16, 4, 120 * SECOND);
        DuplicateRequestCache.New longReply = first(cache, key(1), 0);
        DuplicateRequestCache.Duplicate waiting = again(cache, key(1), 0);
        cache.done(longReply, new byte[5]);
        assertThat(waiting.reply()).isCompletedWithValue(null);
        first(cache, key(1), 1);

        DuplicateRequestCache.New dropped = first(cache, key(2), 0);
        DuplicateRequestCache.Duplicate waitingToo = again(cache, key(2), 0);
        cache.abandon(dropped);
        assertThat(waitingToo.reply()).isCompletedWithValue(null);
        first(cache, key(2), 1);

        DuplicateRequestCache.New fits = first(cache, key(3), 0);
        cache.done(fits, new byte[4]);
        again(cache, key(3), 1);
    }

    @Test
    void aLateReplyToAForgottenCallDoesNotAnswerANewerOneWithTheSameKey() {
        DuplicateRequestCache cache = new DuplicateRequestCache(1, 100, 120 * SECOND);
        DuplicateRequestCache.New old = first(cache, key(1), 0);
        first(cache, key(2), 1); // forgets key 1
        DuplicateRequestCache.New newer = first(cache, key(1), 2); // forgets key 2
        DuplicateRequestCache.Duplicate waiting = again(cache, key(1), 3);
        cache.abandon(old); // the first execution ends without a reply: the newer one is not touched
        assertThat(waiting.reply()).isNotDone();
        again(cache, key(1), 4);
        cache.done(newer, new byte[] {7});
        assertThat(waiting.reply()).isDone();
        assertThat(waiting.reply().getNow(null)).containsExactly(7);
    }

    @Test
    void boundsMustBePositive() {
        assertThatThrownBy(() -> new DuplicateRequestCache(0, 1, 1)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new DuplicateRequestCache(1, 0, 1)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new DuplicateRequestCache(1, 1, 0)).isInstanceOf(IllegalArgumentException.class);
    }
}
