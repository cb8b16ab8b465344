package org.iwarp4j.nfs.internal.v4;

import org.iwarp4j.oncrpc.XdrDecoder;

/**
 * One operation of a COMPOUND: decodes its own arguments from the stream (the COMPOUND is decoded
 * as it runs, so nothing after a failed operation is decoded), runs, and answers. A thrown
 * {@link Nfs4Exception}, XDR error or I/O failure becomes the operation's status.
 */
@FunctionalInterface
interface Operation {
    Result run(XdrDecoder args, CompoundState state) throws Exception;
}
