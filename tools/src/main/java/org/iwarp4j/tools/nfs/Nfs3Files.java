package org.iwarp4j.tools.nfs;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.util.List;
import org.iwarp4j.nfs.NfsClient;
import org.iwarp4j.nfs.NfsStatusException;
import org.iwarp4j.nfs.v3.Fattr3;
import org.iwarp4j.nfs.v3.Readlink3Res;

/** {@link NfsFiles} over NFSv3. */
final class Nfs3Files implements NfsFiles {

    private final NfsClient nfs;

    Nfs3Files(NfsClient nfs) {
        this.nfs = nfs;
    }

    static NfsFileInfo info(String name, Fattr3 a) {
        return NfsFileInfo.of(name, a);
    }

    private static String name(String path) {
        return path.substring(path.lastIndexOf('/') + 1);
    }

    @Override
    public NfsFileInfo stat(String path) {
        return info(name(path), nfs.stat(path));
    }

    @Override
    public List<NfsFileInfo> list(String directory) {
        return nfs.list(directory).stream().filter(e -> e.nameAttributes() != null)
                .map(e -> info(e.name(), e.nameAttributes())).toList();
    }

    @Override
    public String readlink(String path) {
        Readlink3Res link = nfs.readlink(nfs.lookupPath(path)).join();
        return link.status().isOk() ? link.data() : null;
    }

    @Override
    public long upload(InputStream in, String path) throws IOException {
        return nfs.upload(in, path);
    }

    @Override
    public long download(String path, OutputStream out) throws IOException {
        return nfs.download(path, out);
    }

    @Override
    public void remove(String path) {
        int slash = path.lastIndexOf('/');
        var dir = nfs.lookupPath(slash < 0 ? "" : path.substring(0, slash));
        var r = nfs.remove(dir, path.substring(slash + 1)).join();
        if (!r.status().isOk()) {
            throw new NfsStatusException(r.status(), "REMOVE " + path);
        }
    }

    @Override
    public int readSize() {
        return nfs.readSize();
    }

    @Override
    public int writeSize() {
        return nfs.writeSize();
    }
}
