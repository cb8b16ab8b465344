package org.iwarp4j.nfs.binding;

import java.util.OptionalLong;

/**
 * The client-side limits RFC 8267 §3 lets a client bring into reply size estimation.
 *
 * @param maxPathLength the longest pathname the client accepts from READLINK (NFSv3 and NFSv4 do
 *                      not bound it; Linux uses 4096)
 * @param unpredictableItemOctets octets the client allots to a result item without a protocol
 *                                bound (an NFSACL ACL, an NFSv4 attrlist4): its own limit (§5.2,
 *                                §6.2.1) or, for NFSv4.1 and later, ca_maxresponsesize (§6.2.2)
 * @param sessionMaxResponseSize the forward channel's ca_maxresponsesize of an NFSv4.1+ session,
 *                               which bounds every reply absolutely (§6.2.2); empty otherwise
 */
public record ReplySizeLimits(int maxPathLength, long unpredictableItemOctets, OptionalLong sessionMaxResponseSize) {

    /** Linux's NFS_MAXPATHLEN, the longest path its client reads back. */
    public static final int DEFAULT_MAX_PATH_LENGTH = 4096;
    /** A client-chosen allotment for unbounded items (one Linux ACL reply fits in it). */
    public static final long DEFAULT_UNPREDICTABLE_ITEM_OCTETS = 64 * 1024;

    public ReplySizeLimits {
        if (maxPathLength < 0 || unpredictableItemOctets < 0) {
            throw new IllegalArgumentException("negative limit");
        }
        if (sessionMaxResponseSize == null) {
            sessionMaxResponseSize = OptionalLong.empty();
        }
    }

    /** Limits of a client without a session (NFSv2, v3, v4.0, NFSACL). */
    public static ReplySizeLimits defaults() {
        return new ReplySizeLimits(DEFAULT_MAX_PATH_LENGTH, DEFAULT_UNPREDICTABLE_ITEM_OCTETS, OptionalLong.empty());
    }

    /**
     * Limits of an NFSv4.1+ session whose CREATE_SESSION returned this forward channel
     * ca_maxresponsesize: it bounds every reply, and stands in for every unbounded item (§6.2.2).
     */
    public static ReplySizeLimits ofSession(long caMaxResponseSize) {
        if (caMaxResponseSize <= 0) {
            throw new IllegalArgumentException("ca_maxresponsesize <= 0: " + caMaxResponseSize);
        }
        return new ReplySizeLimits(DEFAULT_MAX_PATH_LENGTH, caMaxResponseSize, OptionalLong.of(caMaxResponseSize));
    }

    /** The same limits with another largest pathname. */
    public ReplySizeLimits withMaxPathLength(int length) {
        return new ReplySizeLimits(length, unpredictableItemOctets, sessionMaxResponseSize);
    }
}
