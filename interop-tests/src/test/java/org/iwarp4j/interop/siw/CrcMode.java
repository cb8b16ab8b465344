package org.iwarp4j.interop.siw;

import org.iwarp4j.interop.peer.LinuxPeer;
import org.iwarp4j.mpa.NegotiationMode;

/**
 * Who asks for CRC32c in the MPA startup (RFC 5044 §7.1.1 C bit: C=1 from either end turns CRC
 * on in both directions, MPA-R-047). siw's own choice is its {@code mpa_crc_required} knob,
 * which the harness sets by reloading siw ({@link LinuxPeer#reloadSiw}).
 *
 * <p>There is no "siw alone asks" mode: with the knob on, siw as Responder does not insist on
 * CRC when our Request has C=0 (it answers C=0), and as Initiator it refuses our Reply unless
 * that has C=1 — see {@link SiwCrcKnobInteropTest}.
 */
enum CrcMode {
    /** Neither end asks (siw's default): CRC off; the CRC field is sent as zero. */
    OFF(false, false),
    /** We send C=1; siw, not requiring CRC itself, follows. */
    OURS(true, false),
    /** siw requires CRC (mpa_crc_required=1, its frames carry C=1) and so do we. */
    BOTH(true, true);

    /** siw's knob on {@link #knobPeer} as we last set it; null when unknown. */
    private static Boolean siwRequiresCrc;
    /** The peer the knob's state belongs to: a fresh peer (one that replaced a dead VM) starts at siw's default. */
    private static LinuxPeer knobPeer;

    final boolean weAsk;
    final boolean siwRequires;

    CrcMode(boolean weAsk, boolean siwRequires) {
        this.weAsk = weAsk;
        this.siwRequires = siwRequires;
    }

    /** Whether CRC must be on once connected. */
    boolean negotiated() {
        return weAsk || siwRequires;
    }

    /** Our MPA offer: REQUIRE sends C=1; ACCEPT sends C=0 and uses CRC if the peer asks. */
    NegotiationMode ours() {
        return weAsk ? NegotiationMode.REQUIRE : NegotiationMode.ACCEPT;
    }

    /** Sets siw's knob for this mode, reloading siw only when it changes. */
    void applyTo(LinuxPeer peer) {
        siwRequiresCrc(peer, siwRequires);
    }

    /** Leaves siw as the harness found it: CRC not required. Call from {@code @AfterAll}. */
    static void restore(LinuxPeer peer) {
        siwRequiresCrc(peer, false);
    }

    private static synchronized void siwRequiresCrc(LinuxPeer peer, boolean required) {
        if (knobPeer != peer) {
            knobPeer = peer;
            siwRequiresCrc = null;
        }
        if (siwRequiresCrc == null || siwRequiresCrc != required) {
            siwRequiresCrc = null;  // unknown until the reload succeeds
            peer.reloadSiw(required);
            siwRequiresCrc = required;
        }
    }
}
