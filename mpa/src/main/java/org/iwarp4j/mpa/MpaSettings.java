package org.iwarp4j.mpa;

import static org.iwarp4j.mpa.MpaConstants.ENHANCED_DATA_LENGTH;
import static org.iwarp4j.mpa.MpaConstants.MAX_IRD_ORD;
import static org.iwarp4j.mpa.MpaConstants.MAX_PRIVATE_DATA;
import static org.iwarp4j.mpa.MpaConstants.MAX_ULPDU;
import static org.iwarp4j.mpa.MpaConstants.MAX_ULPDU_LENGTH_FIELD;
import static org.iwarp4j.mpa.MpaConstants.MIN_MULPDU;

import io.micrometer.core.instrument.MeterRegistry;
import java.time.Duration;
import java.util.Collections;
import java.util.EnumSet;
import java.util.Objects;
import java.util.Set;

/**
 * What one end of an MPA connection offers and accepts; immutable, built with {@link #builder()}.
 * The defaults follow the RFCs' recommendations and interoperate with Linux siw.
 */
public final class MpaSettings {

    /** Default startup timeout: 10 seconds, the value Linux siw uses for its MPA exchange. */
    public static final Duration DEFAULT_STARTUP_TIMEOUT = Duration.ofSeconds(10);
    /**
     * Ethernet's MSS without TCP options: a 1500-octet MTU less the IPv4 and TCP headers (RFC 5044
     * §5.1's example). {@code emss(DEFAULT_EMSS)} gives Ethernet-sized FPDUs over any path, e.g.
     * loopback. It is not what an unknown path falls back to: see {@link #FALLBACK_EMSS}.
     */
    public static final int DEFAULT_EMSS = 1460;
    /**
     * EMSS assumed over IPv4 when no EMSS is fixed and the transport does not report the
     * connection's MSS (Java NIO): {@link #DEFAULT_EMSS} less the 12 octets of the TCP timestamp
     * option, so that each FPDU still fits one TCP segment of a 1500-octet Ethernet path with
     * timestamps on (MPA-R-035: derive it from the MTU). Linux uses timestamps by default, and so
     * do the hardware RNICs that size their own FPDUs that way: Chelsio's {@code set_emss} (cm.c)
     * takes the timestamp option off the MSS; Marvell's {@code qed_iwarp_setup} turns timestamps
     * on ({@code QED_IWARP_TS_EN}), and {@code qed_iwarp_cp_pkt} reassembles an FPDU spread over
     * segments only on a software slow path that assumes it is no longer than one MSS. A larger
     * FPDU is never sent by default; {@link Builder#maxSendUlpdu(int)} is the opt-in for
     * software-to-software links (docs/interop.md).
     */
    public static final int FALLBACK_EMSS = DEFAULT_EMSS - 12;
    /** {@link #FALLBACK_EMSS} over IPv6, whose header is 20 octets longer than IPv4's: 1428. */
    public static final int FALLBACK_EMSS_IPV6 = FALLBACK_EMSS - 20;
    /** Default IRD and ORD offered in an enhanced frame. */
    public static final int DEFAULT_IRD_ORD = 16;

    private final int revision;
    private final NegotiationMode markers;
    private final NegotiationMode crc;
    private final byte[] privateData;
    private final int ird;
    private final int ord;
    private final boolean peerToPeer;
    private final int relaxedIrdLimit;
    private final RtrType preferredRtr;
    private final Set<RtrType> rtrTypes;
    private final Duration startupTimeout;
    /** 0: not fixed, the connection's MSS where known, else {@link #FALLBACK_EMSS}. */
    private final int emss;
    private final int maxSendUlpdu;
    private final int maxReceiveUlpdu;
    private final int maxPeerPrivateData;
    private final MeterRegistry meterRegistry;

    private MpaSettings(Builder b) {
        this.revision = b.revision;
        this.markers = b.markers;
        this.crc = b.crc;
        this.privateData = b.privateData.clone();
        this.ird = b.ird;
        this.ord = b.ord;
        this.peerToPeer = b.peerToPeer;
        this.relaxedIrdLimit = b.relaxedIrdLimit;
        this.preferredRtr = b.preferredRtr;
        this.rtrTypes = Collections.unmodifiableSet(b.rtrTypes.isEmpty()
                ? EnumSet.noneOf(RtrType.class) : EnumSet.copyOf(b.rtrTypes));
        this.startupTimeout = b.startupTimeout;
        this.emss = b.emss;
        this.maxSendUlpdu = b.maxSendUlpdu;
        this.maxReceiveUlpdu = b.maxReceiveUlpdu;
        this.maxPeerPrivateData = b.maxPeerPrivateData;
        this.meterRegistry = b.meterRegistry;
    }

    public static Builder builder() {
        return new Builder();
    }

    /** A builder that starts from these settings. */
    public Builder toBuilder() {
        Builder b = new Builder();
        b.revision = revision;
        b.markers = markers;
        b.crc = crc;
        b.privateData = privateData.clone();
        b.ird = ird;
        b.ord = ord;
        b.peerToPeer = peerToPeer;
        b.relaxedIrdLimit = relaxedIrdLimit;
        b.preferredRtr = preferredRtr;
        b.rtrTypes = rtrTypes.isEmpty() ? EnumSet.noneOf(RtrType.class) : EnumSet.copyOf(rtrTypes);
        b.startupTimeout = startupTimeout;
        b.emss = emss;
        b.maxSendUlpdu = maxSendUlpdu;
        b.maxReceiveUlpdu = maxReceiveUlpdu;
        b.maxPeerPrivateData = maxPeerPrivateData;
        b.meterRegistry = meterRegistry;
        return b;
    }

    /** Highest MPA revision used: 1 (RFC 5044) or 2 (RFC 6581, with the IRD/ORD word). Default 2. */
    public int revision() {
        return revision;
    }

    public NegotiationMode markers() {
        return markers;
    }

    public NegotiationMode crc() {
        return crc;
    }

    /** The ULP's private data for the Request (Initiator) or the Reply (Responder); a copy. */
    public byte[] privateData() {
        return privateData.clone();
    }

    /** Inbound RDMA Read queue depth this end can provide (RFC 6581 §9.1). */
    public int ird() {
        return ird;
    }

    /**
     * Outbound RDMA Read queue depth this end wants (RFC 6581 §9.1). 0 means no RDMA Read at all:
     * a connection that negotiates ORD 0 (this, or the peer's IRD 0) refuses every Read.
     */
    public int ord() {
        return ord;
    }

    /** Initiator: ask for the peer-to-peer model (an RTR after the Reply, RFC 6581 §9.2). */
    public boolean peerToPeer() {
        return peerToPeer;
    }

    /**
     * Initiator: the highest IRD this end raises itself to when the Responder's ORD exceeds
     * {@link #ird()}; 0 (the default) = never, Terminate with code 6 as RFC 6581 §9.1 says. See
     * {@link Builder#relaxedIrdLimit(int)}.
     */
    public int relaxedIrdLimit() {
        return relaxedIrdLimit;
    }

    /**
     * Initiator: the RTR to send when the Reply names several that this end can send, or {@code
     * null} (the default) for Write, then Read, then Send. See {@link Builder#preferredRtr}.
     */
    public RtrType preferredRtr() {
        return preferredRtr;
    }

    /** The RTR messages this end can send (Initiator) or receive (Responder). */
    public Set<RtrType> rtrTypes() {
        return rtrTypes;
    }

    /** Time allowed for the whole startup exchange, the Responder's decision included. */
    public Duration startupTimeout() {
        return startupTimeout;
    }

    /**
     * The EMSS fixed with {@link Builder#emss(int)}, or {@link #FALLBACK_EMSS} if none was: the EMSS
     * used for MULPDU when no MULPDU is set and the connection does not report its MSS (over IPv6
     * the fallback is {@link #FALLBACK_EMSS_IPV6}).
     */
    public int emss() {
        return emss != 0 ? emss : FALLBACK_EMSS;
    }

    /**
     * Whether MULPDU follows the connection's MSS (no {@link Builder#emss(int)} and no {@link
     * Builder#maxSendUlpdu(int)}): RFC 5044 §4.5 sizes FPDUs to TCP's EMSS, which on loopback is
     * about 64 KiB and on Ethernet about 1448. Read where the transport reports it (Linux epoll),
     * otherwise {@link #FALLBACK_EMSS} ({@link #FALLBACK_EMSS_IPV6} over IPv6).
     */
    public boolean emssFromConnection() {
        return emss == 0 && maxSendUlpdu == 0;
    }

    /**
     * The MULPDU fixed for software-to-software links with {@link Builder#maxSendUlpdu(int)}, or 0
     * (the default): MULPDU from the EMSS, never above the connection's MSS.
     */
    public int maxSendUlpdu() {
        return maxSendUlpdu;
    }

    /** Largest ULPDU_Length accepted from the peer; a larger one is a framing error. */
    public int maxReceiveUlpdu() {
        return maxReceiveUlpdu;
    }

    /** Largest private data accepted from the peer (RFC 5044 §7.1.2 #9: the application's buffer). */
    public int maxPeerPrivateData() {
        return maxPeerPrivateData;
    }

    /** Where MPA's meters go, or {@code null} for none. */
    public MeterRegistry meterRegistry() {
        return meterRegistry;
    }

    /**
     * MULPDU for FPDUs sent to the peer, with or without markers in them, when the connection's MSS
     * is not known (an IPv4 path assumed).
     */
    public int sendMulpdu(boolean markersToPeer) {
        return sendMulpdu(markersToPeer, 0, false);
    }

    /** {@link #sendMulpdu(boolean, int, boolean)} over IPv4. */
    public int sendMulpdu(boolean markersToPeer, int connectionMss) {
        return sendMulpdu(markersToPeer, connectionMss, false);
    }

    /**
     * MULPDU for FPDUs sent to the peer on a connection whose current MSS is {@code connectionMss}
     * (0 if the transport does not report it): the MULPDU fixed with {@link Builder#maxSendUlpdu}
     * if any (the explicit software-to-software opt-in, sent whatever the MSS); else the RFC 5044
     * §4.5 formula over the EMSS, which is the connection's MSS, or the fixed {@link
     * Builder#emss(int)} where that is smaller or the MSS is unknown, or, with neither, {@link
     * #FALLBACK_EMSS} ({@link #FALLBACK_EMSS_IPV6} if {@code ipv6}). So without the opt-in no FPDU
     * is larger than one TCP segment of the path as far as this end can know it.
     */
    public int sendMulpdu(boolean markersToPeer, int connectionMss, boolean ipv6) {
        if (maxSendUlpdu != 0) {
            return maxSendUlpdu;
        }
        int effective;
        if (connectionMss > 0) {
            effective = emss != 0 ? Math.min(emss, connectionMss) : connectionMss;
        } else {
            effective = emss != 0 ? emss : ipv6 ? FALLBACK_EMSS_IPV6 : FALLBACK_EMSS;
        }
        return Mulpdu.of(effective, markersToPeer);
    }

    /** Builder for {@link MpaSettings}. */
    public static final class Builder {
        private int revision = MpaConstants.REVISION_2;
        private NegotiationMode markers = NegotiationMode.ACCEPT;
        private NegotiationMode crc = NegotiationMode.REQUIRE;
        private byte[] privateData = new byte[0];
        private int ird = DEFAULT_IRD_ORD;
        private int ord = DEFAULT_IRD_ORD;
        private boolean peerToPeer;
        private int relaxedIrdLimit;
        private RtrType preferredRtr;
        private Set<RtrType> rtrTypes = EnumSet.of(RtrType.WRITE, RtrType.READ);
        private Duration startupTimeout = DEFAULT_STARTUP_TIMEOUT;
        private int emss;
        private int maxSendUlpdu;
        private int maxReceiveUlpdu = MAX_ULPDU_LENGTH_FIELD;
        private int maxPeerPrivateData = MAX_PRIVATE_DATA;
        private MeterRegistry meterRegistry;

        private Builder() {
        }

        public Builder revision(int revision) {
            if (revision != MpaConstants.REVISION_1 && revision != MpaConstants.REVISION_2) {
                throw new IllegalArgumentException("MPA revision 1 or 2: " + revision);
            }
            this.revision = revision;
            return this;
        }

        public Builder markers(NegotiationMode markers) {
            this.markers = Objects.requireNonNull(markers);
            return this;
        }

        /**
         * CRC32c negotiation; default {@link NegotiationMode#REQUIRE}. CRC32c is MPA's only integrity
         * check and this stack has no IPsec (MPA-R-076, a known deviation): set {@code ACCEPT} or
         * {@code OFF} only where the path already protects the octets at least as well, as RFC 5044
         * §1.2 and §4.4 require (MPA-R-002, MPA-R-024). Nothing here can check that.
         */
        public Builder crc(NegotiationMode crc) {
            this.crc = Objects.requireNonNull(crc);
            return this;
        }

        /** At most 512 octets, 508 at revision 2 (the IRD/ORD word takes 4, MPA2-R-016). */
        public Builder privateData(byte[] privateData) {
            this.privateData = Objects.requireNonNull(privateData).clone();
            return this;
        }

        public Builder ird(int ird) {
            this.ird = checkIrdOrd(ird);
            return this;
        }

        public Builder ord(int ord) {
            this.ord = checkIrdOrd(ord);
            return this;
        }

        /**
         * Initiator: ask for the peer-to-peer model, flag A with an RTR option for each of {@link
         * #rtrTypes} (RFC 6581 §9.2). Default {@code false}, the client-server model, where the
         * ULP's first message opens the connection (RFC 6581 §5 asks for an explicit RTR only per
         * application or connection and calls piggybacking "a valuable optimization"; MPA2-R-024).
         *
         * <p>Why the default stays off although it does not reach every hardware peer (decided in
         * docs/interop.md, "Default of flag A"): Intel's irdma resets a revision 2 Request without
         * A ({@code irdma_negotiate_mpa_v2_ird_ord} returns -EOPNOTSUPP, then {@code
         * irdma_handle_rcv_mpa} calls {@code irdma_passive_open_err} with reset), so set this to
         * {@code true} towards irdma; Chelsio's iw_cxgb4 ({@code process_mpa_request} leaves its
         * p2p type disabled and {@code send_mpa_reply} sends no A), Marvell's qed ({@code
         * qed_iwarp_mpa_received}: no A, no RTR type) and Linux siw ({@code siw_proc_mpareq}) all
         * accept A=0 and answer in the client-server model. Turning it on by default would add an
         * RTR to every connection, break a Responder that does not echo A (iw_cxgb4 with
         * {@code peer2peer=0}: we must Terminate, MPA2-R-010), and needs the whole siw interop
         * suite to confirm; a failed connect says when irdma is the likely cause.
         */
        public Builder peerToPeer(boolean peerToPeer) {
            this.peerToPeer = peerToPeer;
            return this;
        }

        /**
         * Relaxed IRD negotiation as Initiator: a Responder ORD above our IRD but at most {@code
         * limit} raises our IRD to it instead of failing the connection with Terminate code 6
         * (MPA2-R-006). Chelsio's iw_cxgb4 does the same up to its device maximum
         * ({@code RELAXED_IRD_NEGOTIATION} in {@code process_mpa_reply}); a Responder that does
         * not clamp its ORD to our IRD, as Linux svcrdma on siw (ORD 128), then still connects.
         * Inbound Read Requests are queued in software here, so a higher IRD costs only memory.
         * 0 (the default) keeps RFC 6581's strict rule.
         */
        public Builder relaxedIrdLimit(int limit) {
            this.relaxedIrdLimit = checkIrdOrd(limit);
            return this;
        }

        /**
         * Initiator: which RTR to send when the Reply names more than one that is in {@link
         * #rtrTypes} (RFC 6581 §9.2 leaves the choice to the Initiator); {@code null} restores the
         * default order Write, Read, Send. The RTR is still always one the Reply names
         * (zrlio/softiwarp#20: sending another drew a Terminate from Chelsio). A Reply from Intel's
         * irdma or Chelsio's iw_cxgb4 names one type only; Marvell's qed replies with every type
         * both ends share, where this choice applies (docs/interop.md).
         */
        public Builder preferredRtr(RtrType preferred) {
            this.preferredRtr = preferred;
            return this;
        }

        public Builder rtrTypes(Set<RtrType> rtrTypes) {
            this.rtrTypes = EnumSet.noneOf(RtrType.class);
            this.rtrTypes.addAll(rtrTypes);
            return this;
        }

        public Builder startupTimeout(Duration startupTimeout) {
            if (startupTimeout.isNegative() || startupTimeout.isZero()) {
                throw new IllegalArgumentException("startup timeout must be positive");
            }
            this.startupTimeout = startupTimeout;
            return this;
        }

        /**
         * Fixes the EMSS for the MULPDU formula (RFC 5044 §4.5) instead of following the
         * connection's MSS; e.g. 1460 to get Ethernet-sized FPDUs over loopback. A ceiling: where
         * the transport reports the connection's MSS and it is smaller, the MSS wins, so that no
         * FPDU spans two TCP segments (hardware peers: docs/interop.md). Also what is used where
         * the MSS is not reported, instead of {@link #FALLBACK_EMSS}.
         */
        public Builder emss(int emss) {
            if (emss <= 0) {
                throw new IllegalArgumentException("EMSS must be positive: " + emss);
            }
            this.emss = emss;
            return this;
        }

        /**
         * 0 (the default), or a MULPDU from 128 to 64768 (RFC 5044 §3) to use instead of the EMSS
         * formula, whatever the connection's MSS: the explicit opt-in for FPDUs larger than a TCP
         * segment, for software-to-software links whose both ends are known to take them (iwarp4j
         * and siw do; RFC 5044 §4.5 lets a receiver rely on FPDU alignment). Never set it towards a
         * hardware RNIC: Chelsio T5/T6 and Marvell/QLogic receive FPDUs no larger than their MSS,
         * or only on a slow path (docs/interop.md, "FPDU size"). MPA has no way to negotiate it.
         */
        public Builder maxSendUlpdu(int maxSendUlpdu) {
            if (maxSendUlpdu != 0 && (maxSendUlpdu < MIN_MULPDU || maxSendUlpdu > MAX_ULPDU)) {
                throw new IllegalArgumentException("MULPDU must be 128..64768: " + maxSendUlpdu);
            }
            this.maxSendUlpdu = maxSendUlpdu;
            return this;
        }

        public Builder maxReceiveUlpdu(int maxReceiveUlpdu) {
            if (maxReceiveUlpdu < MIN_MULPDU || maxReceiveUlpdu > MAX_ULPDU_LENGTH_FIELD) {
                throw new IllegalArgumentException("receive maximum must be 128..65535: " + maxReceiveUlpdu);
            }
            this.maxReceiveUlpdu = maxReceiveUlpdu;
            return this;
        }

        public Builder maxPeerPrivateData(int maxPeerPrivateData) {
            if (maxPeerPrivateData < 0 || maxPeerPrivateData > MAX_PRIVATE_DATA) {
                throw new IllegalArgumentException("private data limit must be 0..512: " + maxPeerPrivateData);
            }
            this.maxPeerPrivateData = maxPeerPrivateData;
            return this;
        }

        public Builder meterRegistry(MeterRegistry meterRegistry) {
            this.meterRegistry = meterRegistry;
            return this;
        }

        /** @throws IllegalArgumentException if the private data does not fit (MPA-R-052, MPA2-R-016) */
        public MpaSettings build() {
            int room = MAX_PRIVATE_DATA - (revision == MpaConstants.REVISION_2 ? ENHANCED_DATA_LENGTH : 0);
            if (privateData.length > room) {
                throw new IllegalArgumentException("private data of " + privateData.length
                        + " octets does not fit: at most " + room + " at MPA revision " + revision);
            }
            return new MpaSettings(this);
        }

        private static int checkIrdOrd(int value) {
            if (value < 0 || value > MAX_IRD_ORD) {
                throw new IllegalArgumentException("IRD/ORD are 14-bit values: " + value);
            }
            return value;
        }
    }
}
