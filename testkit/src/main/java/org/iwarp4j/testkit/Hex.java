package org.iwarp4j.testkit;

import java.util.HexFormat;

/**
 * Hex text to bytes and back, for test vectors copied from the specs and from tshark.
 *
 * <p>The specs write vectors in wire order grouped into 4-octet words ({@code 4d504120 49442052}),
 * tshark writes colon-separated octets ({@code 4d:50:41}); both are accepted as they are so a vector
 * can be pasted without editing, which keeps it comparable with its source.
 */
public final class Hex {

    private static final HexFormat LOWER_CASE = HexFormat.of();

    private Hex() {
    }

    /**
     * Decodes hex digits, ignoring whitespace and {@code ':'}.
     *
     * @throws IllegalArgumentException on any other character or an odd number of digits, so a
     *     mistyped vector fails loudly instead of silently shifting every following octet
     */
    public static byte[] decode(String hex) {
        StringBuilder digits = new StringBuilder(hex.length());
        for (int i = 0; i < hex.length(); i++) {
            char c = hex.charAt(i);
            if (Character.isWhitespace(c) || c == ':') {
                continue;
            }
            if (Character.digit(c, 16) < 0) {
                throw new IllegalArgumentException("not a hex digit: '" + c + "' at index " + i);
            }
            digits.append(c);
        }
        if (digits.length() % 2 != 0) {
            throw new IllegalArgumentException("odd number of hex digits (" + digits.length() + ")");
        }
        return LOWER_CASE.parseHex(digits);
    }

    /**
     * Decodes a dump with one {@code "offset: octets"} line per row, such as
     * {@code testdata/vectors/marker-stream.hex}; the offset column is dropped.
     *
     * <p>Exists because {@link #decode} on such a file would read the offsets as data.
     */
    public static byte[] decodeDump(String dump) {
        StringBuilder octets = new StringBuilder(dump.length());
        for (String line : dump.split("\\R")) {
            int colon = line.indexOf(':');
            if (colon < 0 && !line.isBlank()) {
                throw new IllegalArgumentException("dump line without an 'offset:' column: " + line);
            }
            octets.append(line, colon + 1, line.length()).append(' ');
        }
        return decode(octets.toString());
    }

    /** Lower-case hex without separators, the form tshark's {@code follow,tcp,raw} prints. */
    public static String encode(byte[] bytes) {
        return LOWER_CASE.formatHex(bytes);
    }
}
