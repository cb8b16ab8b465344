package org.iwarp4j.mpa;

/**
 * What this end says about markers or CRC in its startup frame, and what it tolerates from the
 * peer. RFC 5044 §7.1.1: the M bit asks the <em>other</em> side to send markers; C=1 from either
 * side turns CRC on in both directions.
 *
 * <table>
 *   <caption>Meaning per option</caption>
 *   <tr><th></th><th>markers (M bit)</th><th>CRC (C bit)</th></tr>
 *   <tr><td>{@link #REQUIRE}</td><td>send M=1: the peer must put markers in what it sends us;
 *       we send markers if the peer asks</td><td>send C=1: CRC both ways</td></tr>
 *   <tr><td>{@link #ACCEPT}</td><td>send M=0; send markers if the peer asks (RFC 5044 §4.3
 *       behaviour)</td><td>send C=0 (the RFC's administrative "no CRC" request, §4.4 2a);
 *       use CRC if the peer sends C=1</td></tr>
 *   <tr><td>{@link #OFF}</td><td>send M=0; refuse a peer that asks for markers (as Linux siw
 *       does)</td><td>send C=0; refuse a peer that asks for CRC</td></tr>
 * </table>
 *
 * <p>"Refuse" means: a Responder answers with a Reply with R=1, an Initiator closes the
 * connection; both report the reason locally. An Initiator that gets an enhanced (RFC 6581)
 * Reply instead enters Full Operation with the Reply's markers and CRC just long enough for the
 * ULP to send a Terminate with LLP code 5, local catastrophic ({@link MpaError#LOCAL_CATASTROPHIC},
 * {@link MpaException#terminateRequired()}), before the close (RFC 6581 §9.3, MPA2-R-021).
 *
 * <p>{@code OFF} is a deliberate departure from RFC 5044 (which wants every sender able to add
 * markers and CRC, MPA-R-015) for tests that emulate peers that cannot.
 */
public enum NegotiationMode {
    OFF,
    ACCEPT,
    REQUIRE
}
