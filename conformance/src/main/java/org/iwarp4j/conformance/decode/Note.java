package org.iwarp4j.conformance.decode;

/**
 * Something a reader of the capture should know that is not a rule broken: octets the capture
 * lacks and where decoding resumed, a peer quirk recognised, a capture that ends inside an FPDU.
 *
 * @param connection the connection's index, or -1 for the whole capture
 * @param direction {@code I>R}, {@code R>I}, or empty
 */
public record Note(long frame, int connection, String direction, String text) {

    @Override
    public String toString() {
        return (frame > 0 ? "frame " + frame + " " : "") + (connection >= 0 ? "conn " + connection + " " : "")
                + (direction.isEmpty() ? "" : direction + " ") + text;
    }
}
