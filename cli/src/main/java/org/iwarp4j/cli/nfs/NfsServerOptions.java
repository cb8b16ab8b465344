package org.iwarp4j.cli.nfs;

import org.iwarp4j.tools.nfs.NfsServerAccess;
import org.iwarp4j.tools.nfs.NfsVersion;
import org.iwarp4j.tools.nfs.NfsTransport;
import java.time.Duration;
import java.util.Locale;
import org.iwarp4j.nfs.binding.NfsBindingConstants;
import org.iwarp4j.oncrpc.AuthSys;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.Option;
import picocli.CommandLine.TypeConversionException;

/** How the client commands reach a server: its ports, the export, the AUTH_SYS identity. */
final class NfsServerOptions {

    @Option(names = "--port", description = "the server's NFS and MOUNT port over TCP (default: ${DEFAULT-VALUE})")
    int port = NfsBindingConstants.NFS_TCP_PORT;

    @Option(names = "--rdma-port", description = "the server's NFS port over RPC-over-RDMA (default: ${DEFAULT-VALUE})")
    int rdmaPort = NfsBindingConstants.NFS_RDMA_PORT;

    @Option(names = "--mount-port", description = "the server's MOUNT port over TCP (default: --port)")
    Integer mountPort;

    @Option(names = "--export", description = "the export to mount (default: the longest export the "
            + "server lists (MOUNT EXPORT) that holds the path)")
    String export;

    @Option(names = "--uid", description = "AUTH_SYS uid of every call (default: ${DEFAULT-VALUE})")
    int uid;

    @Option(names = "--gid", description = "AUTH_SYS gid of every call (default: ${DEFAULT-VALUE})")
    int gid;

    @Option(names = "--timeout", description = "seconds before a call fails (default: ${DEFAULT-VALUE})")
    int timeoutSeconds = 30;

    @Option(names = "--vers", converter = VersionConverter.class, paramLabel = "3|4.1|4.2",
            description = "NFS version (default: the highest the server offers: 4.2, else 4.1, else 3). "
                    + "NFSv4 looks the path up from the server's NFSv4 root (no MOUNT)")
    NfsVersion version = NfsVersion.HIGHEST;

    int mountPort() {
        return mountPort == null ? port : mountPort;
    }

    AuthSys credential() {
        return new AuthSys(0, "iwarp4j", uid, gid, new int[0]);
    }

    Duration timeout() {
        return Duration.ofSeconds(timeoutSeconds);
    }

    /** These options as the tools library takes them. */
    NfsServerAccess access() {
        return new NfsServerAccess(port, rdmaPort, mountPort(), export, uid, gid, timeout());
    }

    /** Checks the ranges; returns a complaint or null. */
    String problem() {
        if (port < 1 || port > 65535) {
            return "--port " + port + ": must be 1..65535";
        }
        if (rdmaPort < 1 || rdmaPort > 65535) {
            return "--rdma-port " + rdmaPort + ": must be 1..65535";
        }
        if (mountPort != null && (mountPort < 1 || mountPort > 65535)) {
            return "--mount-port " + mountPort + ": must be 1..65535";
        }
        if (export != null && !export.startsWith("/")) {
            return "--export " + export + ": must be an absolute path, e.g. /export";
        }
        if (timeoutSeconds < 1) {
            return "--timeout " + timeoutSeconds + ": must be at least 1 second";
        }
        return null;
    }

    /** {@code --vers 3|4.1|4.2}. */
    static final class VersionConverter implements ITypeConverter<NfsVersion> {
        @Override
        public NfsVersion convert(String value) {
            try {
                return NfsVersion.parse(value);
            } catch (IllegalArgumentException e) {
                throw new TypeConversionException("3, 4.1 or 4.2: " + value);
            }
        }
    }

    /** {@code --transport rdma|tcp}, in any case. */
    static final class TransportConverter implements ITypeConverter<NfsTransport> {
        @Override
        public NfsTransport convert(String value) {
            try {
                return NfsTransport.valueOf(value.toUpperCase(Locale.ROOT));
            } catch (IllegalArgumentException e) {
                throw new TypeConversionException("rdma or tcp: " + value);
            }
        }
    }
}
