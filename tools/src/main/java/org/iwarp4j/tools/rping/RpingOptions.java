package org.iwarp4j.tools.rping;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.Objects;
import org.iwarp4j.mpa.MpaConstants;
import org.iwarp4j.mpa.MpaSettings;
import org.iwarp4j.mpa.NegotiationMode;
import org.iwarp4j.tools.pcap.PcapRecording;

/**
 * One rping run, as Linux rping's command line describes it ({@code -s}/{@code -c}, {@code -a},
 * {@code -p}, {@code -C}, {@code -S}, {@code -v}, {@code -V}, {@code -d}) plus the MPA choices siw
 * makes by module parameter. Immutable; build with {@link #clientBuilder(InetAddress)} or {@link #serverBuilder()}.
 *
 * @param server the role: {@code true} for {@code -s}, {@code false} for {@code -c}
 * @param address {@code -a}: the server's address (client), the address to bind (server; {@code null}
 *     binds every address, as rping does)
 * @param port {@code -p}; 0 lets a server take any free port
 * @param count {@code -C}: iterations; 0 = for ever. A server serves until the client disconnects
 *     (as rping) and then fails if fewer than {@code count} iterations were completed
 * @param size {@code -S}: octets of ping data, {@value RpingConstants#MIN_SIZE} to
 *     {@value RpingConstants#MAX_SIZE}; for a server, the largest ping it takes (its buffer's size)
 * @param verbose {@code -v}: print each ping's data
 * @param validate {@code -V}: the client compares what came back with what it sent; this server also
 *     checks that what it read is rping's pattern for the iteration (Linux's server ignores -V)
 * @param debug {@code -d}: rping's debug lines
 * @param crcMode {@code --crc}: REQUIRE sends C=1, so CRC32c is on; ACCEPT (rping's default) sends C=0 and CRC is still used
 *     if the peer asks, as siw does by default (RFC 5044 §4.4 2a, MPA-R-023)
 * @param markers {@code --markers}: send M=1 (ask the peer for markers); markers are sent whenever
 *     the peer asks, as RFC 5044 §4.3 wants
 * @param mpaRevision {@code --mpa-rev}: 1 (RFC 5044) or 2 (RFC 6581, with the IRD/ORD word siw sends)
 * @param timeout the longest wait for any one step (connection, each completion); {@code null} waits
 *     for ever, as rping does
 * @param pcap where the connection is recorded, or {@code null}
 */
public record RpingOptions(boolean server, InetAddress address, int port, int count, int size, boolean verbose,
                           boolean validate, boolean debug, NegotiationMode crcMode, boolean markers, int mpaRevision,
                           Duration timeout, PcapRecording pcap) {

    public RpingOptions {
        if (!server && address == null) {
            throw new IllegalArgumentException("the client needs the server's address (-a)");
        }
        if (port < 0 || port > 65535) {
            throw new IllegalArgumentException("Invalid port " + port);
        }
        if (count < 0) {
            throw new IllegalArgumentException("Invalid count " + count);
        }
        if (size < RpingConstants.MIN_SIZE || size > RpingConstants.MAX_SIZE) {
            throw new IllegalArgumentException("Invalid size " + size + " (valid range is " + RpingConstants.MIN_SIZE
                    + " to " + RpingConstants.MAX_SIZE + ")");
        }
        if (mpaRevision != MpaConstants.REVISION_1 && mpaRevision != MpaConstants.REVISION_2) {
            throw new IllegalArgumentException("Invalid MPA revision " + mpaRevision + " (1 or 2)");
        }
        if (timeout != null && (timeout.isNegative() || timeout.isZero())) {
            timeout = null;
        }
    }

    /** Whether this end asks for CRC32c (C=1). */
    public boolean crc() {
        return crcMode == NegotiationMode.REQUIRE;
    }

    /** A client of the server at {@code address}, port 7174, 64 octets, for ever. */
    public static Builder clientBuilder(InetAddress address) {
        return new Builder(false, Objects.requireNonNull(address));
    }

    /** A server on every address, port 7174. */
    public static Builder serverBuilder() {
        return new Builder(true, null);
    }

    /** The client's destination or the server's bind address. */
    public InetSocketAddress socketAddress() {
        return address == null ? new InetSocketAddress(port) : new InetSocketAddress(address, port);
    }

    /**
     * What MPA offers: the revision, C and M as asked, IRD/ORD 1/1 as rping's
     * {@code responder_resources}/{@code initiator_depth}, no private data, client-server model.
     */
    public MpaSettings mpaSettings() {
        return MpaSettings.builder()
                .revision(mpaRevision)
                .crc(crcMode)
                .markers(markers ? NegotiationMode.REQUIRE : NegotiationMode.ACCEPT)
                .ird(RpingConstants.IRD)
                .ord(RpingConstants.ORD)
                .build();
    }

    /** Builder for {@link RpingOptions}; starts from rping's defaults. */
    public static final class Builder {
        private final boolean server;
        private InetAddress address;
        private int port = RpingConstants.DEFAULT_PORT;
        private int count;
        private int size = RpingConstants.DEFAULT_SIZE;
        private boolean verbose;
        private boolean validate;
        private boolean debug;
        private NegotiationMode crc = NegotiationMode.ACCEPT;
        private boolean markers;
        private int mpaRevision = MpaConstants.REVISION_2;
        private Duration timeout;
        private PcapRecording pcap;

        private Builder(boolean server, InetAddress address) {
            this.server = server;
            this.address = address;
        }

        public Builder address(InetAddress address) {
            this.address = address;
            return this;
        }

        public Builder port(int port) {
            this.port = port;
            return this;
        }

        public Builder count(int count) {
            this.count = count;
            return this;
        }

        public Builder size(int size) {
            this.size = size;
            return this;
        }

        public Builder verbose(boolean verbose) {
            this.verbose = verbose;
            return this;
        }

        public Builder validate(boolean validate) {
            this.validate = validate;
            return this;
        }

        public Builder debug(boolean debug) {
            this.debug = debug;
            return this;
        }

        /** {@code --crc}: ask for CRC32c (C=1); {@code false} is rping's default, CRC only if the peer asks. */
        public Builder crc(boolean crc) {
            this.crc = crc ? NegotiationMode.REQUIRE : NegotiationMode.ACCEPT;
            return this;
        }

        /** {@code --crc=on|accept|off}: OFF also refuses a peer that asks for CRC32c (an MPA reject). */
        public Builder crc(NegotiationMode crc) {
            this.crc = Objects.requireNonNull(crc);
            return this;
        }

        public Builder markers(boolean markers) {
            this.markers = markers;
            return this;
        }

        public Builder mpaRevision(int mpaRevision) {
            this.mpaRevision = mpaRevision;
            return this;
        }

        public Builder timeout(Duration timeout) {
            this.timeout = timeout;
            return this;
        }

        /** Records the connection into {@code pcap} ({@code null}: not recorded). */
        public Builder pcap(PcapRecording pcap) {
            this.pcap = pcap;
            return this;
        }

        /** @throws IllegalArgumentException with rping's wording for a value rping refuses */
        public RpingOptions build() {
            return new RpingOptions(server, address, port, count, size, verbose, validate, debug, crc, markers,
                    mpaRevision, timeout, pcap);
        }
    }
}
