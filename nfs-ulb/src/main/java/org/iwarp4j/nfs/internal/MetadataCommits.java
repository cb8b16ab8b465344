package org.iwarp4j.nfs.internal;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;

/**
 * Puts the names and attributes an operation changed on stable storage before it is answered.
 * NFS has every procedure but an UNSTABLE WRITE done synchronously (WRITE's stable_how and COMMIT
 * are RFC 1813's one exception): a client told a CREATE, REMOVE, RENAME, LINK, MKDIR, SYMLINK or
 * SETATTR succeeded may forget it, and the server must not lose it in a crash (knfsd's
 * {@code commit_metadata} under the default {@code sync} export option). The directories whose
 * entries changed and the objects created or changed are forced ({@code fsync}) as knfsd forces
 * the parent and the child.
 *
 * <p>An operation runs inside a {@link #begin() scope}: while it holds the {@link NamespaceLock}
 * it only opens what it changed (a descriptor is the inode's whatever its names do next); the
 * scope forces them after the lock was released, so a slow disk holds up no other operation's
 * names. Outside a scope (a test calling an operation directly) {@link #changed} forces at once.
 */
public final class MetadataCommits {

    /** How a changed object is made stable (a test seam: a failing or recording force). */
    public interface Forcing {
        void force(Path path, FileChannel channel) throws IOException;
    }

    private final ThreadLocal<Scope> current = new ThreadLocal<>();
    private volatile Forcing forcing = (path, channel) -> channel.force(true);

    /** Replaces {@code fsync} (a test seam). */
    public void forcing(Forcing f) {
        this.forcing = f;
    }

    /** Starts the calling thread's operation's scope. */
    public Scope begin() {
        Scope s = new Scope();
        current.set(s);
        return s;
    }

    /**
     * The directory or regular file at {@code path} changed (an entry added, removed or moved, an
     * attribute set); anything else (a symbolic link) is made stable by its directory's force.
     */
    public void changed(Path path) throws IOException {
        if (!Files.isDirectory(path, LinkOption.NOFOLLOW_LINKS) && !Files.isRegularFile(path, LinkOption.NOFOLLOW_LINKS)) {
            return;
        }
        Scope s = current.get();
        if (s != null) {
            if (!s.paths.contains(path)) {
                s.channels.add(FileChannel.open(path, StandardOpenOption.READ, LinkOption.NOFOLLOW_LINKS));
                s.paths.add(path);
            }
            return;
        }
        try (FileChannel channel = FileChannel.open(path, StandardOpenOption.READ, LinkOption.NOFOLLOW_LINKS)) {
            forcing.force(path, channel);
        }
    }

    /** The objects one operation changed, forced by {@link #commit()} and closed by {@link #close()}. */
    public final class Scope implements AutoCloseable {
        private final List<Path> paths = new ArrayList<>();
        private final List<FileChannel> channels = new ArrayList<>();

        private Scope() {
        }

        /** Forces every object changed so far, in the order changed; the first failure is thrown. */
        public void commit() throws IOException {
            for (int i = 0; i < channels.size(); i++) {
                forcing.force(paths.get(i), channels.get(i));
            }
        }

        /** How many objects this operation changed (for tests). */
        int size() {
            return channels.size();
        }

        @Override
        public void close() {
            current.remove();
            for (FileChannel c : channels) {
                try {
                    c.close();
                } catch (IOException e) {
                    // only read through, to be forced: closing it loses nothing
                }
            }
        }
    }
}
