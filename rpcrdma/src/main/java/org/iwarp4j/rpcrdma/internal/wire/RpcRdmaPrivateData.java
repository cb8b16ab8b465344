package org.iwarp4j.rpcrdma.internal.wire;

import static org.iwarp4j.rpcrdma.internal.wire.RpcRdmaConstants.DEFAULT_INLINE_THRESHOLD;
import static org.iwarp4j.rpcrdma.internal.wire.RpcRdmaConstants.PRIVATE_DATA_FORMAT_IDENTIFIER;
import static org.iwarp4j.rpcrdma.internal.wire.RpcRdmaConstants.PRIVATE_DATA_LENGTH;
import static org.iwarp4j.rpcrdma.internal.wire.RpcRdmaConstants.PRIVATE_DATA_MAX_SIZE;
import static org.iwarp4j.rpcrdma.internal.wire.RpcRdmaConstants.PRIVATE_DATA_REMOTE_INVALIDATION;
import static org.iwarp4j.rpcrdma.internal.wire.RpcRdmaConstants.PRIVATE_DATA_SIZE_UNIT;
import static org.iwarp4j.rpcrdma.internal.wire.RpcRdmaConstants.PRIVATE_DATA_VERSION;

import java.util.Optional;

/**
 * The RFC 8797 connection private data block (§4): Format Identifier 0xF6AB0E18, Version 1, the R
 * bit (this end accepts RDMA Send with Invalidate), and the largest RDMA Send this end will send and
 * the largest it can receive. On iWARP it travels in the MPA Request and Reply private data, after
 * the RFC 6581 IRD/ORD word when that is present.
 *
 * <pre>
 *  0  Format Identifier  4 octets  F6 AB 0E 18
 *  4  Version            1 octet   1
 *  5  flags              1 octet   bit 0 = R; bits 7..1 reserved: 0 on send, ignored on receive
 *  6  Send Size          1 octet   (bytes / 1024) - 1
 *  7  Receive Size       1 octet   (bytes / 1024) - 1
 * </pre>
 *
 * @param remoteInvalidation the R bit
 * @param sendSize octets, a multiple of 1024 from 1024 to 262144
 * @param receiveSize octets, a multiple of 1024 from 1024 to 262144
 */
public record RpcRdmaPrivateData(int version, boolean remoteInvalidation, int sendSize, int receiveSize) {

    /**
     * What a receiver assumes when the peer sent no valid block (§5.1): R clear and both sizes
     * encoded 0, i.e. 1024 octets, the RFC 8166 default.
     */
    public static final RpcRdmaPrivateData ABSENT =
            new RpcRdmaPrivateData(PRIVATE_DATA_VERSION, false, DEFAULT_INLINE_THRESHOLD, DEFAULT_INLINE_THRESHOLD);

    public RpcRdmaPrivateData {
        if (version != PRIVATE_DATA_VERSION) {
            throw new IllegalArgumentException("only Version 1 is defined: " + version);
        }
        checkSize(sendSize);
        checkSize(receiveSize);
    }

    /**
     * A Version 1 block; sizes that are not representable are rounded down to a multiple of 1024
     * (at least 1024, at most 262144), as §4.2 makes them maxima.
     */
    public static RpcRdmaPrivateData of(boolean remoteInvalidation, int sendSize, int receiveSize) {
        return new RpcRdmaPrivateData(PRIVATE_DATA_VERSION, remoteInvalidation, representable(sendSize),
                representable(receiveSize));
    }

    /** The encoded octet for {@code bytes} (§4.2): bytes / 1024 - 1, rounded down, clamped to 0..255. */
    public static int encodeSize(int bytes) {
        return representable(bytes) / PRIVATE_DATA_SIZE_UNIT - 1;
    }

    /** The size an encoded octet stands for: (encoded + 1) * 1024. */
    public static int decodeSize(int encoded) {
        return ((encoded & 0xFF) + 1) * PRIVATE_DATA_SIZE_UNIT;
    }

    /** The 8 octets of this block. */
    public byte[] encode() {
        byte[] out = new byte[PRIVATE_DATA_LENGTH];
        out[0] = (byte) (PRIVATE_DATA_FORMAT_IDENTIFIER >>> 24);
        out[1] = (byte) (PRIVATE_DATA_FORMAT_IDENTIFIER >>> 16);
        out[2] = (byte) (PRIVATE_DATA_FORMAT_IDENTIFIER >>> 8);
        out[3] = (byte) PRIVATE_DATA_FORMAT_IDENTIFIER;
        out[4] = (byte) version;
        out[5] = (byte) (remoteInvalidation ? PRIVATE_DATA_REMOTE_INVALIDATION : 0); // CMPD-R-005: reserved bits 0
        out[6] = (byte) encodeSize(sendSize);
        out[7] = (byte) encodeSize(receiveSize);
        return out;
    }

    /**
     * Finds the block in received private data (§5.2): the Format Identifier is searched for at
     * every offset, aligned or not; a match counts only if a Version this end knows follows and the
     * whole 8 octets fit in the buffer. Reserved flag bits are ignored (§4). Empty if there is no
     * valid block: the caller then uses {@link #ABSENT} (§5.1). Never throws for bad input.
     */
    public static Optional<RpcRdmaPrivateData> find(byte[] privateData) {
        // CMPD-R-013: other private data (the RFC 6581 word, a peer's own) may come first, at any offset.
        for (int i = 0; i + PRIVATE_DATA_LENGTH <= privateData.length; i++) {
            if (intAt(privateData, i) == PRIVATE_DATA_FORMAT_IDENTIFIER
                    && (privateData[i + 4] & 0xFF) == PRIVATE_DATA_VERSION) {
                return Optional.of(new RpcRdmaPrivateData(PRIVATE_DATA_VERSION,
                        // CMPD-R-005: only R is read; reserved bits a later sender may set do not matter
                        (privateData[i + 5] & PRIVATE_DATA_REMOTE_INVALIDATION) != 0,
                        decodeSize(privateData[i + 6]), decodeSize(privateData[i + 7])));
            }
        }
        return Optional.empty();
    }

    /**
     * {@link #find}, or {@link #ABSENT} if there is no valid block: a peer that sent none is taken
     * to have R clear and 1024-octet sizes, so both thresholds fall back to 1024 (CMPD-R-012).
     */
    public static RpcRdmaPrivateData findOrAbsent(byte[] privateData) {
        return find(privateData).orElse(ABSENT);
    }

    private static int intAt(byte[] b, int i) {
        return (b[i] & 0xFF) << 24 | (b[i + 1] & 0xFF) << 16 | (b[i + 2] & 0xFF) << 8 | b[i + 3] & 0xFF;
    }

    private static int representable(int bytes) {
        int clamped = Math.max(PRIVATE_DATA_SIZE_UNIT, Math.min(PRIVATE_DATA_MAX_SIZE, bytes));
        return clamped / PRIVATE_DATA_SIZE_UNIT * PRIVATE_DATA_SIZE_UNIT;
    }

    private static void checkSize(int size) {
        if (size < PRIVATE_DATA_SIZE_UNIT || size > PRIVATE_DATA_MAX_SIZE || size % PRIVATE_DATA_SIZE_UNIT != 0) {
            throw new IllegalArgumentException("size must be a multiple of 1024 from 1024 to 262144: " + size);
        }
    }
}
