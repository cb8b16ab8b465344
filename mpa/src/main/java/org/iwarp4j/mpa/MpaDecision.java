package org.iwarp4j.mpa;

/** A Responder ULP's answer to an {@link MpaConnectRequest}: accept or reject, with private data. */
public final class MpaDecision {

    private final boolean accept;
    private final byte[] privateData;
    private final String reason;

    private MpaDecision(boolean accept, byte[] privateData, String reason) {
        this.accept = accept;
        this.privateData = privateData == null ? null : privateData.clone();
        this.reason = reason;
    }

    /** Accept with the private data of the {@link MpaSettings}. */
    public static MpaDecision accept() {
        return new MpaDecision(true, null, null);
    }

    /** Accept, answering with this private data (at most 512 octets, 508 at revision 2). */
    public static MpaDecision accept(byte[] privateData) {
        return new MpaDecision(true, privateData, null);
    }

    /** Reject: a Reply with R=1 carrying this private data (RFC 5044 §7.1.2 #2, MPA-R-056). */
    public static MpaDecision reject(byte[] privateData, String reason) {
        return new MpaDecision(false, privateData == null ? new byte[0] : privateData, reason);
    }

    public boolean isAccept() {
        return accept;
    }

    /** The private data to send, or {@code null} for the settings' private data. */
    public byte[] privateData() {
        return privateData == null ? null : privateData.clone();
    }

    /** Why the ULP rejected, for the local error message; may be {@code null}. */
    public String reason() {
        return reason;
    }
}
