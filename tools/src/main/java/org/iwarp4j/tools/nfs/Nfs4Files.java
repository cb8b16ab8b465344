package org.iwarp4j.tools.nfs;

import static org.iwarp4j.nfs.v4.Nfs4Constants.*;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.time.Instant;
import java.util.List;
import org.iwarp4j.nfs.Nfs4Client;
import org.iwarp4j.nfs.v4.FileAttributes4;

/**
 * {@link NfsFiles} over NFSv4.1/4.2. Owners are the owner and owner_group strings (RFC 8881
 * §5.8.2.26/27, "user@domain" or a number); uid and gid are -1.
 */
final class Nfs4Files implements NfsFiles {

    private final Nfs4Client nfs;

    Nfs4Files(Nfs4Client nfs) {
        this.nfs = nfs;
    }

    static NfsFileInfo info(String name, FileAttributes4 a) {
        char type = switch (a.type()) {
            case NF4DIR -> 'd';
            case NF4LNK -> 'l';
            case NF4BLK -> 'b';
            case NF4CHR -> 'c';
            case NF4SOCK -> 's';
            case NF4FIFO -> 'p';
            default -> '-';
        };
        Instant mtime = a.mtimeSeconds() < 0 && a.mtimeNanos() < 0 ? null
                : Instant.ofEpochSecond(a.mtimeSeconds(), Math.max(0, a.mtimeNanos()));
        return new NfsFileInfo(name, type, Math.max(0, a.mode()), Math.max(0, a.numlinks()), -1, -1, a.size(), mtime,
                a.owner(), a.ownerGroup());
    }

    @Override
    public NfsFileInfo stat(String path) {
        return info(path.substring(path.lastIndexOf('/') + 1), nfs.stat(path));
    }

    @Override
    public List<NfsFileInfo> list(String directory) {
        return nfs.list(directory).stream().map(e -> info(e.name(), e.attributes())).toList();
    }

    @Override
    public String readlink(String path) {
        return nfs.readlink(path);
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
        nfs.remove(path);
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
