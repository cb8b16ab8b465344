package org.iwarp4j.oncrpc;

/**
 * XDR data that cannot be encoded or decoded (RFC 4506): a length beyond the declared maximum
 * or beyond the octets that remain, a boolean that is neither 0 nor 1, a truncated item.
 *
 * <p>A server maps it, thrown while a procedure decodes its arguments, to {@code GARBAGE_ARGS}
 * (RFC 5531 §9).
 */
public class XdrException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    public XdrException(String message) {
        super(message);
    }

    public XdrException(String message, Throwable cause) {
        super(message, cause);
    }
}
