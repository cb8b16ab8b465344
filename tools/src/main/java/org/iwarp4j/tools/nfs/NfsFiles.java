package org.iwarp4j.tools.nfs;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.util.List;

/**
 * The path operations the nfs commands use, over an NFSv3 {@code NfsClient} or an NFSv4
 * {@code Nfs4Client}; paths are relative to the session's root, as {@link NfsSession#path()}.
 */
public interface NfsFiles {

    NfsFileInfo stat(String path);

    /** A directory's entries ("." and ".." left out). */
    List<NfsFileInfo> list(String directory);

    /** The target of a symbolic link, or null if this version's client does not read links. */
    String readlink(String path);

    long upload(InputStream in, String path) throws IOException;

    long download(String path, OutputStream out) throws IOException;

    void remove(String path);

    int readSize();

    int writeSize();
}
