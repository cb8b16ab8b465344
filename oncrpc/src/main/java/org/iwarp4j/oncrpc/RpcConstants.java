package org.iwarp4j.oncrpc;

/**
 * The numbers of RFC 5531 (ONC RPC Version 2), in the order of its §8, §9 and Appendix A,
 * and of its §11 record marking.
 */
public final class RpcConstants {

    /** rpcvers: the only RPC protocol version (RFC 5531 §9). */
    public static final int RPC_VERSION = 2;

    /** msg_type CALL (RFC 5531 §9). */
    public static final int CALL = 0;
    /** msg_type REPLY (RFC 5531 §9). */
    public static final int REPLY = 1;

    /** reply_stat MSG_ACCEPTED (RFC 5531 §9). */
    public static final int MSG_ACCEPTED = 0;
    /** reply_stat MSG_DENIED (RFC 5531 §9). */
    public static final int MSG_DENIED = 1;

    /** reject_stat RPC_MISMATCH: rpcvers != 2 (RFC 5531 §9). */
    public static final int RPC_MISMATCH = 0;
    /** reject_stat AUTH_ERROR: the caller could not be authenticated (RFC 5531 §9). */
    public static final int AUTH_ERROR = 1;

    /** auth_flavor AUTH_NONE (RFC 5531 §8.2, Appendix A). */
    public static final int AUTH_NONE = 0;
    /** auth_flavor AUTH_SYS, formerly AUTH_UNIX (RFC 5531 Appendix A). */
    public static final int AUTH_SYS = 1;
    /** auth_flavor AUTH_SHORT (RFC 5531 Appendix A). */
    public static final int AUTH_SHORT = 2;
    /** auth_flavor AUTH_DH (RFC 5531 §8.2). */
    public static final int AUTH_DH = 3;
    /** auth_flavor RPCSEC_GSS (RFC 2203, listed in RFC 5531 §8.2). */
    public static final int RPCSEC_GSS = 6;

    /** Largest opaque_auth body: {@code opaque body<400>} (RFC 5531 §8.2). */
    public static final int MAX_AUTH_BYTES = 400;
    /** Largest AUTH_SYS machinename: {@code string machinename<255>} (RFC 5531 Appendix A). */
    public static final int MAX_MACHINE_NAME = 255;
    /** Most AUTH_SYS auxiliary gids: {@code unsigned int gids<16>} (RFC 5531 Appendix A). */
    public static final int MAX_GIDS = 16;

    /** Record marking: the last-fragment bit of the 4-octet record mark (RFC 5531 §11). */
    public static final int LAST_FRAGMENT = 0x8000_0000;
    /** Record marking: the fragment length, the low 31 bits of the record mark (RFC 5531 §11). */
    public static final int FRAGMENT_LENGTH_MASK = 0x7FFF_FFFF;
    /** Record marking: octets of the record mark (RFC 5531 §11). */
    public static final int RECORD_MARK_LENGTH = 4;

    /** First program number of the "defined by user" range 0x20000000-0x3fffffff (RFC 5531 §7.3). */
    public static final int USER_DEFINED_PROGRAM_FIRST = 0x2000_0000;
    /** Last program number of the "defined by user" range (RFC 5531 §7.3). */
    public static final int USER_DEFINED_PROGRAM_LAST = 0x3FFF_FFFF;

    /** Octets of a call header up to and including proc (xid, mtype, rpcvers, prog, vers, proc). */
    public static final int CALL_HEADER_FIXED_LENGTH = 24;

    private RpcConstants() {
    }
}
