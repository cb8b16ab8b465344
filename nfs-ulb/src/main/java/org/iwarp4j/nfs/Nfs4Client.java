package org.iwarp4j.nfs;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.util.List;
import java.util.Objects;
import org.iwarp4j.nfs.internal.NfsRdmaSettings;
import org.iwarp4j.nfs.internal.client4.Nfs4Connection;
import org.iwarp4j.nfs.v4.DirEntry4;
import org.iwarp4j.nfs.v4.FileAttributes4;
import org.iwarp4j.oncrpc.RpcClient;
import org.iwarp4j.oncrpc.RpcClientTransport;
import org.iwarp4j.rpcrdma.RpcRdmaSettings;

/**
 * An NFSv4.1 client (RFC 8881), minor version 2 (RFC 7862) when the server offers it, over TCP
 * (RFC 5531 record marking) or over RPC-over-RDMA with the RFC 8267 rules for NFSv4: READ data
 * into a Write chunk per READ, WRITE data as a Read chunk at the position of the data item, a
 * Reply chunk when a Reply can outgrow the inline threshold (a large READDIR).
 *
 * <p>Connecting sets up a session: EXCHANGE_ID, CREATE_SESSION (no back channel: the client asks
 * for no delegations, so the server has nothing to call back about), RECLAIM_COMPLETE; every
 * later COMPOUND starts with SEQUENCE on a slot of the session. {@link #close()} sends
 * DESTROY_SESSION and DESTROY_CLIENTID. Failed operations throw {@link Nfs4StatusException}, as
 * do replies that break the protocol (NFS4ERR_IO: a WRITE of nothing, a READ of nothing before
 * eof, a listing that loops, a COMPOUND that claims NFS4_OK without every result).
 *
 * <p>While idle the client renews its lease with a COMPOUND of SEQUENCE alone every third of the
 * server's lease_time (RFC 8881 §8.3), from one timer thread stopped by {@link #close()}. A call
 * that gets no reply retires its session slot (never reused with its sequence id, §2.10.6.2); the
 * server's sr_target_highest_slotid bounds the slots used; SEQUENCE flags reporting revoked state
 * fail the next operation (§18.46.3).
 *
 * <pre>{@code
 * try (Nfs4Client nfs = Nfs4Client.builder(new InetSocketAddress("server", 2049)).connect()) {
 *     nfs.upload(Files.newInputStream(local), "dir/file.bin");
 *     for (DirEntry4 e : nfs.list("dir")) System.out.println(e.name());
 * }
 * }</pre>
 */
public final class Nfs4Client implements AutoCloseable {

    private final Nfs4Connection connection;

    private Nfs4Client(Nfs4Connection connection) {
        this.connection = connection;
    }

    public static Builder builder(InetSocketAddress server) {
        return new Builder(server);
    }

    /** The minor version of the session: 1 or 2. */
    public int minorVersion() {
        return connection.minorVersion();
    }

    /** Octets per READ: the client's limit, the server's maxread and what the session's replies hold. */
    public int readSize() {
        return connection.readSize();
    }

    /** Octets per WRITE: the client's limit, the server's maxwrite and what the session's calls hold. */
    public int writeSize() {
        return connection.writeSize();
    }

    /** The handle of the client's root (the server's root, or {@link Builder#root the path below it}). */
    public byte[] rootHandle() {
        return connection.rootHandle();
    }

    /** The transport the COMPOUNDs travel on. */
    public RpcClientTransport transport() {
        return connection.rpc().transport();
    }

    /** The handle of a path relative to the root ("a/b/c"; "" or "/" is the root). */
    public byte[] lookupPath(String path) {
        return connection.lookupPath(path);
    }

    /** The attributes of a path. */
    public FileAttributes4 stat(String path) {
        return connection.stat(path);
    }

    /** The target of the symbolic link {@code path} (READLINK, RFC 8881 §18.24). */
    public String readlink(String path) {
        return connection.readlink(path);
    }

    /** The octets the server lets this caller write on the file system of {@code path} (space_avail), -1 if unknown. */
    public long spaceAvailable(String path) {
        return connection.attributes(path, FileAttributes4.SPACE).spaceAvailable();
    }

    /** The entries of a directory with their attributes (READDIR until eof). */
    public List<DirEntry4> list(String directory) {
        return connection.list(directory);
    }

    /** Creates (or truncates) {@code path} and writes everything from {@code in} to it; returns the octets written. */
    public long upload(InputStream in, String path) throws IOException {
        return connection.upload(in, path);
    }

    /** Reads all of {@code path} into {@code out}; returns the octets read. */
    public long download(String path, OutputStream out) throws IOException {
        return connection.download(path, out);
    }

    /** Removes a file or an empty directory. */
    public void remove(String path) {
        connection.remove(path);
    }

    /** DESTROY_SESSION, DESTROY_CLIENTID, then closes the transport. */
    @Override
    public void close() {
        connection.close();
    }

    /**
     * Options of an {@link Nfs4Client}: minor version, root and transfer sizes here; transport,
     * credential, timeout and window as for every NFS client.
     */
    public static final class Builder extends ClientBuilder<Builder> {
        private int minorVersion = -1;
        private String root = "";
        private int maxRead = 1 << 20;
        private int maxWrite = 1 << 20;

        private Builder(InetSocketAddress server) {
            super(server);
        }

        /**
         * The minor version: 1 or 2. By default 2, and 1 if the server answers
         * NFS4ERR_MINOR_VERS_MISMATCH (RFC 8881 §16.2.3).
         */
        public Builder minorVersion(int minor) {
            if (minor != 1 && minor != 2) {
                throw new IllegalArgumentException("minor version 1 or 2, not " + minor);
            }
            this.minorVersion = minor;
            return this;
        }

        /**
         * The path below the server's root (PUTROOTFH) that is this client's root, e.g. a Linux
         * server's export path when it is not exported with {@code fsid=0} (default: the root).
         */
        public Builder root(String path) {
            this.root = Objects.requireNonNull(path, "path");
            return this;
        }

        /** The largest READ or WRITE (default 1 MiB). */
        public Builder maxTransfer(int octets) {
            return maxTransfer(octets, octets);
        }

        /** The largest READ and the largest WRITE (default 1 MiB each). */
        public Builder maxTransfer(int readOctets, int writeOctets) {
            if (readOctets < 4096 || writeOctets < 4096) {
                throw new IllegalArgumentException("transfers of at least 4096 octets, not " + readOctets + "/"
                        + writeOctets);
            }
            this.maxRead = readOctets;
            this.maxWrite = writeOctets;
            return this;
        }

        /** The RPC-over-RDMA settings this client uses for {@code base}: the NFS inline sizes, the NFSv4 Requester binding. */
        public static RpcRdmaSettings rdmaSettings(RpcRdmaSettings base) {
            return NfsRdmaSettings.forNfs(base).toBuilder().binding(Nfs4Connection.rdmaBinding()).build();
        }

        /** Connects and sets up the session. */
        public Nfs4Client connect() throws IOException {
            RpcClient rpc = openRpc(Math.max(maxRead, maxWrite), Builder::rdmaSettings);
            return new Nfs4Client(Nfs4Connection.connect(rpc, minorVersion, root, maxRead, maxWrite, window,
                    timeout));
        }
    }
}
