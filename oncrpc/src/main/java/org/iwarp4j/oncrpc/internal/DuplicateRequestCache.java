package org.iwarp4j.oncrpc.internal;

import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;

/**
 * The replies of recent calls to non-idempotent procedures, so that a retransmitted call is
 * answered with the reply its first transmission got instead of being executed twice (knfsd's
 * {@code nfscache.c}; RFC 5531 §9: the xid lets a server detect retransmissions). A REMOVE
 * executed twice answers the second time NFS3ERR_NOENT, which the client's application would
 * see although its file was removed.
 *
 * <p>Bounded per server: at most {@code entries} calls are remembered, each reply at most {@code
 * replyOctets} long (a longer one is not kept), each for {@code lifetimeNanos} from its arrival;
 * the oldest are forgotten first. One client that fills the cache only shortens what everyone's
 * retransmissions can find, never the memory it takes. Thread-safe (one lock; the work under it
 * is a hash lookup and, at worst, forgetting the entries that are due; no future is completed
 * under it, since what waits on one goes on to send a reply).
 */
public final class DuplicateRequestCache {

    /**
     * What identifies a retransmission: the same client host, xid, program, version and procedure,
     * and the same credential and arguments, as far as the arguments' length and a checksum of the
     * credential and the arguments' first octets tell (the checksum tells apart two calls of one
     * host, of the same user or not, that happen to reuse an xid). knfsd's key has these but the
     * credential, and the client's port and transport too (Linux's client reconnects from the port
     * it had); here the port is left out, since other clients, ours among them, reconnect from a
     * new one, and the credential is in, since two users of one host share its address.
     */
    public record Key(Object client, int xid, int program, int version, int procedure, int argsLength,
                      int checksum) {
        public Key {
            Objects.requireNonNull(client, "client");
        }
    }

    /** What {@link #begin} found. */
    public sealed interface Lookup permits New, Duplicate {
    }

    /**
     * Not seen before (or forgotten): the caller executes the call and then hands this back to
     * {@link #done} or {@link #abandon} (it names this transmission, not just its key, so that a
     * late reply to a call forgotten in between cannot answer a newer one with the same key).
     */
    public static final class New implements Lookup {
        private final Key key;
        private final Entry entry;

        private New(Key key, Entry entry) {
            this.key = key;
            this.entry = entry;
        }

        public Key key() {
            return key;
        }
    }

    /**
     * A retransmission: {@code reply} completes with the first transmission's reply (already, if
     * it has been answered), or with {@code null} if that reply is not kept (too long, or the call
     * was dropped).
     */
    public record Duplicate(CompletableFuture<byte[]> reply, boolean answered) implements Lookup {
    }

    private final int entries;
    private final int replyOctets;
    private final long lifetimeNanos;
    /** In order of arrival: the first entry is the oldest. */
    private final LinkedHashMap<Key, Entry> calls = new LinkedHashMap<>();

    private static final class Entry {
        final long arrived;
        final CompletableFuture<byte[]> reply = new CompletableFuture<>();

        Entry(long arrived) {
            this.arrived = arrived;
        }
    }

    public DuplicateRequestCache(int entries, int replyOctets, long lifetimeNanos) {
        if (entries < 1 || replyOctets < 1 || lifetimeNanos < 1) {
            throw new IllegalArgumentException("entries, reply octets and lifetime must be positive: " + entries + ", "
                    + replyOctets + ", " + lifetimeNanos);
        }
        this.entries = entries;
        this.replyOctets = replyOctets;
        this.lifetimeNanos = lifetimeNanos;
    }

    /** The longest reply kept. */
    public int replyOctets() {
        return replyOctets;
    }

    /** A call arrives at {@code now} (nanoseconds): a new one is remembered as in progress. */
    public Lookup begin(Key key, long now) {
        List<Entry> forgotten = new ArrayList<>(0);
        Lookup seen;
        synchronized (calls) {
            forgetExpired(now, forgotten);
            Entry known = calls.get(key);
            if (known != null) {
                seen = new Duplicate(known.reply, known.reply.isDone());
            } else {
                if (calls.size() >= entries) {
                    Iterator<Entry> oldest = calls.values().iterator();
                    forgotten.add(oldest.next());
                    oldest.remove();
                }
                Entry entry = new Entry(now);
                calls.put(key, entry);
                seen = new New(key, entry);
            }
        }
        forgotten.forEach(DuplicateRequestCache::forget);
        return seen;
    }

    /**
     * The call begun as {@code call} was answered with {@code reply} (the whole reply message), or
     * with one that is not kept ({@code null}, or longer than {@link #replyOctets()}): then it is
     * forgotten, and a retransmission waiting for it gets {@code null}. Waiting retransmissions go
     * on on this thread, after the cache's lock is released.
     */
    public void done(New call, byte[] reply) {
        if (reply == null || reply.length > replyOctets) {
            synchronized (calls) {
                calls.remove(call.key, call.entry);
            }
            forget(call.entry);
            return;
        }
        call.entry.reply.complete(reply); // also if forgotten meanwhile: a retransmission may still wait on it
    }

    /** The call begun as {@code call} got no reply: forgotten, so that a retransmission is executed. */
    public void abandon(New call) {
        done(call, null);
    }

    /** Calls remembered now. */
    public int size() {
        synchronized (calls) {
            return calls.size();
        }
    }

    private void forgetExpired(long now, List<Entry> forgotten) {
        for (Iterator<Entry> it = calls.values().iterator(); it.hasNext(); ) {
            Entry oldest = it.next();
            if (now - oldest.arrived < lifetimeNanos) {
                return;
            }
            forgotten.add(oldest);
            it.remove();
        }
    }

    /** A retransmission waiting on a forgotten call gets no reply rather than waiting for ever. */
    private static void forget(Entry entry) {
        entry.reply.complete(null);
    }

    @Override
    public String toString() {
        return "DuplicateRequestCache(" + size() + " of " + entries + " calls, replies up to " + replyOctets
                + " octets, " + lifetimeNanos / 1_000_000_000L + " s)";
    }
}
