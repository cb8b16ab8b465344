package org.iwarp4j.nfs.internal;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.Objects;
import java.util.zip.CRC32C;

/**
 * One exported directory: its canonical root (symbolic links resolved once, at start), the name
 * clients mount it by, and an export id that stays the same across server restarts as long as the
 * directory does (it is derived from the root's device, inode and path).
 */
public final class Export {

    private final Path root;
    private final String name;
    private final long id;
    private final long rootDev;
    private final long rootIno;

    /**
     * @param directory the directory to export; must exist
     * @param name the dirpath clients give MOUNT, e.g. {@code /export}
     */
    public Export(Path directory, String name) throws IOException {
        this.root = directory.toRealPath();
        if (!Files.isDirectory(root, LinkOption.NOFOLLOW_LINKS)) {
            throw new IOException("not a directory: " + root);
        }
        this.name = Objects.requireNonNull(name, "name");
        FileStat stat = FileStat.of(root);
        this.rootDev = stat.dev();
        this.rootIno = stat.ino();
        CRC32C crc = new CRC32C();
        crc.update(root.toString().getBytes(StandardCharsets.UTF_8));
        long high = stat.dev() * 0x9E3779B97F4A7C15L ^ stat.ino();
        this.id = (high << 32) ^ crc.getValue() ^ (high >>> 32);
    }

    public Path root() {
        return root;
    }

    public String name() {
        return name;
    }

    /** The export id, carried in every file handle and reported as every file's fsid. */
    public long id() {
        return id;
    }

    public long rootDevice() {
        return rootDev;
    }

    /** The root's inode number, as read at start. */
    public long rootInode() {
        return rootIno;
    }

    /** Whether {@code path} (absolute, normalised) is the root or below it. */
    public boolean contains(Path path) {
        return path.normalize().startsWith(root);
    }
}
