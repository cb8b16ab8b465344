package org.iwarp4j.tools.nfs;

/**
 * {@code SERVER:/path} as mount(8) writes it: a host name or address ({@code [v6]} in brackets)
 * and an absolute path on the server, which starts with an export's name.
 */
public record NfsLocation(String host, String path) {

    /** Parses {@code host:/path}; throws IllegalArgumentException with the accepted form otherwise. */
    public static NfsLocation parse(String text) {
        int colon;
        String host;
        if (text.startsWith("[")) {
            int close = text.indexOf("]:");
            if (close < 0) {
                throw new IllegalArgumentException("SERVER:/path expected, e.g. [::1]:/export, not " + text);
            }
            host = text.substring(1, close);
            colon = close + 1;
        } else {
            colon = text.indexOf(':');
            host = colon < 0 ? "" : text.substring(0, colon);
        }
        if (colon < 0 || host.isEmpty() || colon + 1 >= text.length() || text.charAt(colon + 1) != '/') {
            throw new IllegalArgumentException("SERVER:/path expected, e.g. server:/export/dir, not " + text);
        }
        return new NfsLocation(host, normalise(text.substring(colon + 1)));
    }

    /** {@code path} without repeated or trailing slashes ("/" stays). */
    public static String normalise(String path) {
        String p = path.replaceAll("/+", "/");
        return p.length() > 1 && p.endsWith("/") ? p.substring(0, p.length() - 1) : p;
    }

    /** The part of {@link #path()} below {@code export} ("" for the export itself), or null if outside it. */
    public String below(String export) {
        String e = normalise(export);
        if (path.equals(e)) {
            return "";
        }
        if (e.equals("/")) {
            return path.substring(1);
        }
        return path.startsWith(e + "/") ? path.substring(e.length() + 1) : null;
    }

    @Override
    public String toString() {
        return (host.contains(":") ? "[" + host + "]" : host) + ":" + path;
    }
}
