package org.iwarp4j.nfs;

import java.net.InetAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;

/**
 * Who may use an export and as whom, after knfsd's exports(5): read-only or read-write, root
 * squash, all squash with {@code anonuid}/{@code anongid}, and the client addresses or networks
 * admitted. Immutable; {@link #builder()} makes one.
 *
 * <p>The defaults are the safe ones, and where they differ from knfsd's it is on the safe side:
 * <ul>
 *   <li><b>read-only</b> unless {@link Builder#readWrite()} (knfsd's default is {@code ro} too);</li>
 *   <li><b>root squash</b>: AUTH_SYS uid 0 acts as {@code anonuid}, gid 0 as {@code anongid},
 *       also among the auxiliary gids (knfsd's {@code root_squash}, its default);</li>
 *   <li>no all squash; {@code anonuid} and {@code anongid} 65534 ("nobody"/"nogroup");</li>
 *   <li><b>clients: loopback only</b> (127.0.0.0/8 and ::1) unless {@link Builder#client} names
 *       others. knfsd has no default here — an exports line names its clients — and a server that
 *       answered every address by default would hand a file system to whoever can reach the
 *       port, so this one admits only its own host until told otherwise ({@code *} admits
 *       everyone, as in exports(5)).</li>
 * </ul>
 *
 * <p>A call without AUTH_SYS (AUTH_NONE) acts as {@code anonuid}/{@code anongid} with no
 * auxiliary groups, as knfsd maps AUTH_NULL; so does an AUTH_SYS uid or gid of -1 (knfsd's
 * "invalid" id). There is no {@code secure} option: calls from any source port are served (knfsd's
 * {@code insecure}), as AUTH_SYS from a privileged port proves little on networks where anyone
 * may be root on some host.
 */
public final class ExportOptions {

    /** The id of "nobody" and "nogroup", knfsd's default {@code anonuid} and {@code anongid}. */
    public static final int NOBODY = 65534;

    private static final ExportOptions DEFAULTS = builder().build();

    private final boolean readOnly;
    private final boolean rootSquash;
    private final boolean allSquash;
    private final int anonUid;
    private final int anonGid;
    private final List<ClientNetwork> clients;

    private ExportOptions(Builder b) {
        this.readOnly = b.readOnly;
        this.rootSquash = b.rootSquash;
        this.allSquash = b.allSquash;
        this.anonUid = b.anonUid;
        this.anonGid = b.anonGid;
        this.clients = b.clients.isEmpty() ? List.of(ClientNetwork.LOOPBACK_V4, ClientNetwork.LOOPBACK_V6)
                : List.copyOf(b.clients);
    }

    /** Read-only, root squash, anonuid/anongid 65534, loopback clients only. */
    public static ExportOptions defaults() {
        return DEFAULTS;
    }

    public static Builder builder() {
        return new Builder();
    }

    /** Every procedure that would change the file system answers NFS3ERR_ROFS. */
    public boolean readOnly() {
        return readOnly;
    }

    /** AUTH_SYS uid 0 and gid 0 act as {@link #anonUid()} and {@link #anonGid()}. */
    public boolean rootSquash() {
        return rootSquash;
    }

    /** Every caller acts as {@link #anonUid()} and {@link #anonGid()}, with no auxiliary groups. */
    public boolean allSquash() {
        return allSquash;
    }

    public int anonUid() {
        return anonUid;
    }

    public int anonGid() {
        return anonGid;
    }

    /** The admitted client addresses and networks. */
    public List<ClientNetwork> clients() {
        return clients;
    }

    /** Whether a client at {@code address} is admitted; an unknown address (null) only if everyone is. */
    public boolean admits(InetAddress address) {
        if (address == null) {
            return clients.contains(ClientNetwork.EVERYONE);
        }
        for (ClientNetwork n : clients) {
            if (n.contains(address)) {
                return true;
            }
        }
        return false;
    }

    /** E.g. {@code read-only, root squash (anonuid 65534, anongid 65534), clients 127.0.0.0/8 ::1/128}. */
    public String describe() {
        String squash = allSquash ? "all squash" : rootSquash ? "root squash" : "no root squash";
        String anon = allSquash || rootSquash ? " (anonuid " + Integer.toUnsignedString(anonUid) + ", anongid "
                + Integer.toUnsignedString(anonGid) + ")" : "";
        return (readOnly ? "read-only" : "read-write") + ", " + squash + anon + ", clients "
                + clients.stream().map(ClientNetwork::toString).collect(Collectors.joining(" "));
    }

    @Override
    public String toString() {
        return "ExportOptions(" + describe() + ")";
    }

    /** Builds {@link ExportOptions}; starts from the defaults. */
    public static final class Builder {
        private boolean readOnly = true;
        private boolean rootSquash = true;
        private boolean allSquash;
        private int anonUid = NOBODY;
        private int anonGid = NOBODY;
        private final List<ClientNetwork> clients = new ArrayList<>();

        private Builder() {
        }

        /** Refuse every change with NFS3ERR_ROFS (the default), or not. */
        public Builder readOnly(boolean readOnly) {
            this.readOnly = readOnly;
            return this;
        }

        /** Allow changes (exports(5) {@code rw}). */
        public Builder readWrite() {
            return readOnly(false);
        }

        /** Map uid 0 and gid 0 to the anonymous ids (the default), or trust them (knfsd's {@code no_root_squash}). */
        public Builder rootSquash(boolean rootSquash) {
            this.rootSquash = rootSquash;
            return this;
        }

        /** Map every caller to the anonymous ids (knfsd's {@code all_squash}). */
        public Builder allSquash(boolean allSquash) {
            this.allSquash = allSquash;
            return this;
        }

        /** The uid squashed and AUTH_NONE callers act as (default 65534). */
        public Builder anonUid(int uid) {
            this.anonUid = uid;
            return this;
        }

        /** The gid squashed and AUTH_NONE callers act as (default 65534). */
        public Builder anonGid(int gid) {
            this.anonGid = gid;
            return this;
        }

        /**
         * Admit this address or network ({@link ClientNetwork#parse}); the first call replaces the
         * default (loopback only).
         */
        public Builder client(String addressOrNetwork) {
            return client(ClientNetwork.parse(addressOrNetwork));
        }

        /** Admit this network; the first call replaces the default (loopback only). */
        public Builder client(ClientNetwork network) {
            if (!clients.contains(network)) {
                clients.add(network);
            }
            return this;
        }

        public ExportOptions build() {
            return new ExportOptions(this);
        }
    }
}
