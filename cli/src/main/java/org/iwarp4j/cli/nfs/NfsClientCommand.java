package org.iwarp4j.cli.nfs;

import org.iwarp4j.tools.nfs.NfsFailures;
import org.iwarp4j.tools.nfs.NfsLocation;
import org.iwarp4j.tools.nfs.NfsSession;
import org.iwarp4j.tools.nfs.NfsTransport;
import java.io.IOException;
import java.io.PrintWriter;
import java.util.concurrent.Callable;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * What {@code nfs ls|get|put} share: the server options, {@code --transport rdma|tcp}, one mount
 * per run, and the exit statuses (1 failed or not verified, 3 no connection).
 */
abstract class NfsClientCommand implements Callable<Integer> {

    @Spec
    CommandSpec spec;

    @Mixin
    NfsServerOptions server;

    @Option(names = "--transport", converter = NfsServerOptions.TransportConverter.class, paramLabel = "rdma|tcp",
            description = "NFS over RPC-over-RDMA (default) or over TCP; MOUNT is always over TCP")
    NfsTransport transport = NfsTransport.RDMA;

    /** The command's name, for messages. */
    abstract String name();

    /** The location the command mounts. */
    abstract String location();

    /** Checks the command's own options; throws ParameterException. */
    void checkOptions() {
    }

    /** The work, on a mounted session; returns the exit status. */
    abstract int run(NfsSession session, NfsLocation location, PrintWriter out, PrintWriter err) throws Exception;

    @Override
    public Integer call() {
        String problem = server.problem();
        if (problem != null) {
            throw new ParameterException(spec.commandLine(), problem);
        }
        NfsLocation location;
        try {
            location = NfsLocation.parse(location());
        } catch (IllegalArgumentException e) {
            throw new ParameterException(spec.commandLine(), e.getMessage());
        }
        checkOptions();
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        try (NfsSession session = NfsSession.open(location, server.access(), transport, 1 << 20, 8, null,
                org.iwarp4j.tools.pcap.CommandCapture.current(), server.version)) {
            return run(session, location, out, err);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            err.println("iwarp nfs " + name() + ": interrupted");
            return NfsFailures.EXIT_FAILED;
        } catch (Exception e) {
            err.println("iwarp nfs " + name() + ": " + NfsFailures.describe(e));
            return NfsFailures.exitStatus(e);
        } finally {
            out.flush();
            err.flush();
        }
    }

    /** "RDMA" or "TCP" with the ports and the NFS version, for the report lines. */
    String over(NfsSession session) {
        return (session.transport() == NfsTransport.RDMA ? "RPC-over-RDMA (port " + server.rdmaPort + ")"
                : "TCP (port " + server.port + ")") + ", NFSv" + session.version().text();
    }

    /** MB/s, MB = 2^20 octets as the bench commands count. */
    static double megabytesPerSecond(long octets, long nanos) {
        return octets / (double) (1 << 20) / (nanos / 1e9);
    }

    static IOException notVerified(String what) {
        return new IOException("NOT VERIFIED: " + what);
    }
}
