package org.iwarp4j.nfs.v3;

import org.iwarp4j.oncrpc.XdrDecoder;
import org.iwarp4j.oncrpc.XdrEncoder;

/**
 * wcc_data (RFC 1813 §2.6): pre_op_attr and post_op_attr around an operation that changed an
 * object; either may be absent (null).
 */
public record WccData(WccAttr before, Fattr3 after) {

    /** Both absent. */
    public static final WccData EMPTY = new WccData(null, null);

    public static WccData decode(XdrDecoder in) {
        return new WccData(in.readOptional(WccAttr::decode), Fattr3.decodePostOpAttr(in));
    }

    public void encode(XdrEncoder out) {
        out.writeOptional(before, (o, b) -> b.encode(o));
        Fattr3.encodePostOpAttr(out, after);
    }
}
