package org.iwarp4j.nfs.v4;

import java.util.Objects;

/**
 * One entry4 of a READDIR result (RFC 8881 §18.23.2): its cookie, its name and the attributes
 * asked for ({@link FileAttributes4#REQUEST}).
 */
public record DirEntry4(long cookie, String name, FileAttributes4 attributes) {

    public DirEntry4 {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(attributes, "attributes");
    }
}
