package org.iwarp4j.nfs.internal.v4;

import java.util.function.Consumer;
import org.iwarp4j.oncrpc.XdrEncoder;

/**
 * What one operation of a COMPOUND answers (RFC 8881 §16.2.3, nfs_resop4): its status and what
 * follows the status on the wire, if anything (the resok arm, or an error arm such as LOCK4denied).
 */
record Result(int status, Consumer<XdrEncoder> body) {

    private static final Consumer<XdrEncoder> NOTHING = out -> { };

    static Result ok(Consumer<XdrEncoder> body) {
        return new Result(0, body);
    }

    static Result ok() {
        return new Result(0, NOTHING);
    }

    static Result status(int status) {
        return new Result(status, NOTHING);
    }
}
