package org.iwarp4j.nfs.internal.client;

import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;
import java.util.function.ToLongFunction;

/**
 * A whole directory read page by page, the same in NFSv3 READDIR/READDIRPLUS (RFC 1813 §3.3.16,
 * §3.3.17) and NFSv4 READDIR (RFC 8881 §18.23): the first request carries cookie 0 and verifier
 * 0, each next one the cookie of the last entry received and the verifier of the last reply, until
 * a reply says eof (or, defensively, brings no entry). "." and ".." are left out.
 */
public final class DirectoryListing {

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

    public static <E> List<E> readAll(PageReader<E> reader, Function<E, String> name, ToLongFunction<E> cookie) {
        List<E> entries = new ArrayList<>();
        long nextCookie = 0;
        long verifier = 0;
        while (true) {
            Page<E> page = reader.read(nextCookie, verifier);
            for (E e : page.entries()) {
                String n = name.apply(e);
                if (!n.equals(".") && !n.equals("..")) {
                    entries.add(e);
                }
                nextCookie = cookie.applyAsLong(e);
            }
            verifier = page.verifier();
            if (page.eof() || page.entries().isEmpty()) {
                return entries;
            }
        }
    }
}
