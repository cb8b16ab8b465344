package org.iwarp4j.nfs.internal.client;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.function.Function;
import java.util.function.ToLongFunction;

/**
 * A whole directory read page by page, the same in NFSv3 READDIR/READDIRPLUS (RFC 1813 §3.3.16,
 * §3.3.17) and NFSv4 READDIR (RFC 8881 §18.23): the first request carries cookie 0 and verifier
 * 0, each next one the cookie of the last entry received and the verifier of the last reply, until
 * a reply says eof. "." and ".." are left out.
 *
 * <p>A server's replies cannot keep the client listing for ever; each of these fails the listing
 * with the caller's {@code protocolError}, never cuts it short:
 * <ul>
 *   <li>a reply with no entry and without eof: it would have the client ask for the same cookie
 *       again (a server that cannot fit one entry answers NFS3ERR_TOOSMALL / NFS4ERR_TOOSMALL,
 *       RFC 1813 §3.3.16, RFC 8881 §18.23.4; Linux takes such a reply for the end instead);</li>
 *   <li>a reply whose last cookie is one a request of this listing already carried: the listing
 *       loops, as Linux reports ("directory contains a readdir loop", ELOOP). Only the cookie a
 *       listing continues from is checked, not every entry's: two entries may share a cookie (a
 *       hash collision, which a server keeps within one reply);</li>
 *   <li>more than {@link #MAX_ENTRIES} entries: a server inventing new cookies for ever would
 *       otherwise fill the heap, since the listing is held whole.</li>
 * </ul>
 */
public final class DirectoryListing {

    /**
     * The most entries one listing takes (2^22): a few hundred MiB of entries with attributes, far
     * beyond the directories a client lists whole; larger ones are read a reply at a time with the
     * clients' READDIR / READDIRPLUS calls.
     */
    public static final int MAX_ENTRIES = 1 << 22;

    /** One reply's entries, cookie verifier and eof flag. */
    public record Page<E>(List<E> entries, long verifier, boolean eof) {
    }

    /** Sends one request and waits for its reply; a failed status throws. */
    @FunctionalInterface
    public interface PageReader<E> {
        Page<E> read(long cookie, long verifier);
    }

    private DirectoryListing() {
    }

    /**
     * The listing; {@code protocolError} makes the exception thrown for replies that break the
     * protocol, from a description of what they did.
     */
    public static <E> List<E> readAll(PageReader<E> reader, Function<E, String> name, ToLongFunction<E> cookie,
                                      Function<String, RuntimeException> protocolError) {
        return readAll(reader, name, cookie, protocolError, MAX_ENTRIES);
    }

    static <E> List<E> readAll(PageReader<E> reader, Function<E, String> name, ToLongFunction<E> cookie,
                               Function<String, RuntimeException> protocolError, int maxEntries) {
        List<E> entries = new ArrayList<>();
        Set<Long> asked = new HashSet<>();
        long received = 0;
        long nextCookie = 0;
        long verifier = 0;
        while (true) {
            asked.add(nextCookie);
            Page<E> page = reader.read(nextCookie, verifier);
            if (page.entries().isEmpty() && !page.eof()) {
                throw protocolError.apply("a reply after cookie " + nextCookie + " with no entry and without eof");
            }
            received += page.entries().size();
            if (received > maxEntries) {
                throw protocolError.apply("more than " + maxEntries + " entries, the most a listing holds");
            }
            for (E e : page.entries()) {
                String n = name.apply(e);
                if (!n.equals(".") && !n.equals("..")) {
                    entries.add(e);
                }
                nextCookie = cookie.applyAsLong(e);
            }
            verifier = page.verifier();
            if (page.eof()) {
                return entries;
            }
            if (asked.contains(nextCookie)) {
                throw protocolError.apply("cookie " + nextCookie + " again after " + received
                        + " entries: the listing loops");
            }
        }
    }
}
