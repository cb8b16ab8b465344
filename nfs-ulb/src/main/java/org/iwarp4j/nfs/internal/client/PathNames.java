package org.iwarp4j.nfs.internal.client;

import java.util.ArrayList;
import java.util.List;

/**
 * The names along a path relative to a client's root, as the clients look them up one LOOKUP at a
 * time: {@code "a/b/c"} is a, b, c; empty components (a leading, doubled or trailing slash) are
 * left out, so {@code ""} and {@code "/"} are the root itself.
 */
public final class PathNames {

    private PathNames() {
    }

    public static List<String> components(String path) {
        List<String> names = new ArrayList<>();
        for (String part : path.split("/")) {
            if (!part.isEmpty()) {
                names.add(part);
            }
        }
        return names;
    }
}
