package org.iwarp4j.cli.rping;

import org.iwarp4j.tools.rping.RpingClient;
import org.iwarp4j.tools.rping.RpingConstants;
import org.iwarp4j.tools.rping.RpingOptions;
import org.iwarp4j.tools.rping.RpingResult;
import org.iwarp4j.cli.UntilStopped;
import org.iwarp4j.tools.rping.RpingPersistentServer;
import org.iwarp4j.tools.rping.RpingServer;
import java.io.PrintWriter;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.time.Duration;
import org.iwarp4j.mpa.NegotiationMode;
import org.iwarp4j.tools.net.ConnectErrors;
import java.util.concurrent.Callable;
import picocli.CommandLine.ArgGroup;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code iwarp rping}: Linux rping's command line and protocol over iwarp4j's RNIC, so either end
 * can be Linux rping over siw. Exit status 0 only if every iteration completed (and matched, with
 * {@code -V}); 1 for a failed run; 2 for a bad command line.
 */
@Command(name = "rping", sortOptions = false, usageHelpAutoWidth = true,
        description = {"RDMA ping-pong compatible with Linux rping (rdma-core), in both roles and on the wire.",
                "The client Sends {addr, rkey, len} of its start buffer; the server RDMA Reads it and Sends \"go"
                        + " ahead\"; the client Sends {addr, rkey, len} of its sink buffer; the server RDMA Writes the"
                        + " data back and Sends \"go ahead\" again. -V compares the data, -v prints it.",
                "MPA as siw's: revision 2 with IRD/ORD 1/1; CRC only with --crc or if the peer asks; markers only"
                        + " with --markers or if the peer asks.", ""},
        footer = {"", "Exit status: 0 every iteration completed (and matched, with -V); 1 the connection failed or"
                + " was rejected, a completion failed, the data did not match, or the peer disconnected too early"
                + " (for a server with -C: before COUNT iterations); 2 bad command line. A persistent server (-s -P)"
                + " exits 0 when stopped (Ctrl-C or SIGTERM), 1 if it cannot listen."})
public final class RpingCommand implements Callable<Integer> {

    @Spec
    private CommandSpec spec;

    @ArgGroup(exclusive = true, multiplicity = "1")
    private Role role;

    /** -s or -c, one of them. */
    static final class Role {
        @Option(names = "-s", required = true, description = "server side")
        boolean server;

        @Option(names = "-c", required = true, description = "client side")
        boolean client;
    }

    @Option(names = "-a", paramLabel = "ADDR",
            description = "address: the server's (client), the one to bind to (server; default: all)")
    String address;

    @Option(names = "-p", paramLabel = "PORT", description = "port (default: ${DEFAULT-VALUE})")
    int port = RpingConstants.DEFAULT_PORT;

    @Option(names = "-C", paramLabel = "COUNT",
            description = "ping count; 0 = for ever (default). Server: the client must complete this many")
    int count;

    @Option(names = "-S", paramLabel = "SIZE", converter = org.iwarp4j.cli.Octets.Int.class,
            description = "ping data size, " + RpingConstants.MIN_SIZE + ".." + RpingConstants.MAX_SIZE
                    + ", K/M allowed (default: ${DEFAULT-VALUE}); server: the largest it takes")
    int size = RpingConstants.DEFAULT_SIZE;

    @Option(names = "-v", description = "display ping data to stdout")
    boolean verbose;

    @Option(names = "-V", description = "validate ping data (client: compare what came back; server: check"
            + " what it read is rping's ping data)")
    boolean validate;

    @Option(names = "-d", description = "debug printfs")
    boolean debug;

    @Option(names = "--crc", paramLabel = "on|accept|off", arity = "0..1", fallbackValue = "on",
            converter = CrcModes.class, description = "CRC32c: on (ask for it, MPA C=1; --crc alone), accept (rping's"
                    + " default: C=0, CRC only if the peer asks, as siw does), off (refuse a peer that asks)")
    NegotiationMode crc = NegotiationMode.ACCEPT;

    @Option(names = "--markers", description = "ask the peer for markers (MPA M=1); siw refuses them")
    boolean markers;

    @Option(names = "--mpa-rev", paramLabel = "1|2", description = "MPA revision: 1 (RFC 5044) or 2 (RFC 6581,"
            + " with the IRD/ORD word; default)")
    int mpaRevision = 2;

    @Option(names = "--timeout", paramLabel = "SECONDS", description = "give up after this long without progress"
            + " (connection, each completion); default 0 = wait for ever, as rping")
    double timeoutSeconds;

    @Option(names = "-P", description = "persistent server: keep listening and serve every client, at the same time,"
            + " until Ctrl-C or SIGTERM (rping's -P; here at most " + RpingPersistentServer.MAX_CLIENTS + " at once)")
    boolean persistent;

    @Option(names = "-I", paramLabel = "ADDR", description = "rping's source address for the client: accepted, not"
            + " applied (the operating system picks it)")
    String sourceAddress;

    @Option(names = "-q", description = "rping's self-created, self-modified QP: accepted; this process always"
            + " creates and moves its own queue pair (no rdma_cm), so nothing changes")
    boolean selfCreatedQp;

    @Option(names = "-t", paramLabel = "TOS", description = "rping's type of service: accepted, not applied (no"
            + " IP TOS is set on the connection)")
    Integer tos;

    @Option(names = {"-h", "--help"}, usageHelp = true, description = "show this help and exit")
    boolean help;

    /** {@code --crc[=on|accept|off]}, as every iwarp command takes it. */
    static final class CrcModes implements picocli.CommandLine.ITypeConverter<NegotiationMode> {
        @Override
        public NegotiationMode convert(String value) {
            return switch (value.toLowerCase(java.util.Locale.ROOT)) {
                case "on", "require" -> NegotiationMode.REQUIRE;
                case "accept" -> NegotiationMode.ACCEPT;
                case "off" -> NegotiationMode.OFF;
                default -> throw new picocli.CommandLine.TypeConversionException("must be on, accept or off");
            };
        }
    }

    @Override
    public Integer call() throws Exception {
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        RpingOptions options;
        try {
            options = options();
        } catch (IllegalArgumentException | UnknownHostException e) {
            err.println("iwarp rping: " + e.getMessage());
            err.println("see iwarp rping --help");
            err.flush();
            return 2;
        }
        notes(err);
        RpingResult result;
        if (options.server() && persistent) {
            return servePersistently(options, out, err);
        } else if (options.server()) {
            RpingServer server;
            try {
                server = RpingServer.bind(options, out, err);
            } catch (InterruptedException e) {
                throw e;
            } catch (Exception e) { // Netty's bind failure may be an undeclared checked exception
                return cannotBind(options, e, err);
            }
            try (server) {
                result = server.serve();
            }
        } else {
            result = new RpingClient(options, out, err).run();
        }
        out.flush();
        err.flush();
        return result.isSuccess() ? 0 : 1;
    }

    /** {@code -s -P}: every client until SIGINT or SIGTERM, then exit 0 (Linux's rping -P is only ever killed). */
    private static int servePersistently(RpingOptions options, PrintWriter out, PrintWriter err)
            throws InterruptedException {
        try (UntilStopped stop = UntilStopped.onSignals("iwarp-rping-stop")) {
            RpingPersistentServer server;
            try {
                server = RpingPersistentServer.bind(options, out, err);
            } catch (InterruptedException e) {
                throw e;
            } catch (Exception e) { // Netty's bind failure may be an undeclared checked exception
                return cannotBind(options, e, err);
            }
            try (server) {
                stop.await();
            }
        }
        out.flush();
        err.flush();
        return 0;
    }

    /** rping's words for a port that cannot be bound, and its exit status 1. */
    private static int cannotBind(RpingOptions options, Exception e, PrintWriter err) {
        err.println("rdma_bind_addr: " + ConnectErrors.cannotListen(options.socketAddress(), e));
        err.flush();
        return 1;
    }

    /** What rping options change nothing here, said once so that nobody wonders. */
    private void notes(PrintWriter err) {
        if (sourceAddress != null) {
            err.println("iwarp rping: -I " + sourceAddress + " not applied: the client's address is the one the"
                    + " operating system picks");
        }
        if (tos != null) {
            err.println("iwarp rping: -t " + tos + " not applied: no IP type of service is set");
        }
        if (persistent && role.client) {
            err.println("iwarp rping: -P is for a server; ignored by the client");
        }
        err.flush();
    }

    /** The parsed command line as options; {@link IllegalArgumentException} with rping's words if invalid. */
    RpingOptions options() throws UnknownHostException {
        InetAddress resolved = null;
        if (address != null) {
            try {
                resolved = InetAddress.getByName(address);
            } catch (UnknownHostException e) {
                throw new UnknownHostException("-a " + address + ": no such host");
            }
        }
        if (role.client && resolved == null) {
            throw new IllegalArgumentException("-c: the client needs the server's address: -a ADDR");
        }
        RpingOptions.Builder b = role.server ? RpingOptions.serverBuilder().address(resolved) : RpingOptions.clientBuilder(resolved);
        return b.port(port).count(count).size(size).verbose(verbose).validate(validate).debug(debug)
                .crc(crc).markers(markers).mpaRevision(mpaRevision)
                .timeout(timeoutSeconds > 0 ? Duration.ofNanos((long) (timeoutSeconds * 1e9)) : null)
                .pcap(org.iwarp4j.tools.pcap.CommandCapture.current())
                .build();
    }
}
