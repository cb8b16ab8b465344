package org.iwarp4j.nfs.internal;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.AccessDeniedException;
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
 * names. Outside a scope (only a test calls an operation directly) {@link #changed} forces at once.
 */
public final class MetadataCommits {

    /** How a changed object is made stable (a test seam: a failing or recording force). */
    public interface Forcing {
        void force(Path path, FileChannel channel) throws IOException;
    }

    /** How an object is opened to be forced (a test seam: a server that may not open a file). */
    public interface Opening {
        FileChannel open(Path path, StandardOpenOption how) throws IOException;
    }

    private final ThreadLocal<Scope> current = new ThreadLocal<>();
    private volatile Opening opening = (path, how) -> FileChannel.open(path, how, LinkOption.NOFOLLOW_LINKS);
    private volatile Forcing forcing = (path, channel) -> channel.force(true);

    /** Replaces {@code open} (a test seam). */
    public void opening(Opening o) {
        this.opening = o;
    }

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
     * Never fails the operation, which has made its change: an object the server may not open (a
     * mode of 0 with the server not root) has its directory forced instead, and one whose
     * directory cannot be opened either makes the scope's {@link Scope#commit()} fail.
     */
    public void changed(Path path) {
        Scope s = current.get();
        if (s != null && s.paths.contains(path)) {
            return;
        }
        FileChannel channel;
        try {
            channel = open(path);
        } catch (IOException e) {
            if (s != null && s.failure == null) {
                s.failure = e;
            }
            return;
        }
        if (channel == null) {
            Path parent = path.getParent();
            if (parent != null && !path.equals(parent)) {
                changed(parent);
            }
            return;
        }
        if (s != null) {
            s.channels.add(channel);
            s.paths.add(path);
            return;
        }
        // Outside a scope only tests call an operation: forced at once, a failure left to them.
        try (FileChannel c = channel) {
            forcing.force(path, c);
        } catch (IOException e) {
            // nothing to answer it to
        }
    }

    /**
     * A descriptor to force the object by: read-only, or write-only for a file the server may
     * write but not read; null for what cannot be opened that way (a symbolic link, a file the
     * server may not open at all), which its directory's force stands for.
     */
    private FileChannel open(Path path) throws IOException {
        boolean directory = Files.isDirectory(path, LinkOption.NOFOLLOW_LINKS);
        if (!directory && !Files.isRegularFile(path, LinkOption.NOFOLLOW_LINKS)) {
            return null;
        }
        try {
            return opening.open(path, StandardOpenOption.READ);
        } catch (AccessDeniedException e) {
            if (directory) {
                return null;
            }
        }
        try {
            return opening.open(path, StandardOpenOption.WRITE);
        } catch (AccessDeniedException e) {
            return null;
        }
    }

    /** The objects one operation changed, forced by {@link #commit()} and closed by {@link #close()}. */
    public final class Scope implements AutoCloseable {
        private final List<Path> paths = new ArrayList<>();
        private final List<FileChannel> channels = new ArrayList<>();
        /** Why an object changed could not be opened to be forced, if it could not. */
        private IOException failure;

        private Scope() {
        }

        /** Forces every object changed so far, in the order changed; the first failure is thrown. */
        public void commit() throws IOException {
            if (failure != null) {
                throw failure;
            }
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
