package org.iwarp4j.oncrpc.fuzz;

import java.util.function.Consumer;
import org.iwarp4j.oncrpc.XdrEncoder;

/** The fuzz targets' and seed writers' way from an encoder to octets. */
final class XdrOctets {

    private XdrOctets() {
    }

    /** The XDR stream {@code writer} encodes, as an array; nothing stays allocated. */
    static byte[] of(Consumer<XdrEncoder> writer) {
        XdrEncoder encoder = XdrEncoder.create();
        writer.accept(encoder);
        return encoder.toByteArray();
    }
}
