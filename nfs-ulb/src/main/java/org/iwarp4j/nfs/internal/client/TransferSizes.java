package org.iwarp4j.nfs.internal.client;

/**
 * The READ and WRITE sizes a client takes from the sizes a server announces (NFSv3 FSINFO's
 * rtpref, rtmax, wtpref and wtmax, RFC 1813 §3.3.19; NFSv4's maxread and maxwrite attributes,
 * RFC 8881 §5.8.2), as Linux's {@code nfs_io_size} (fs/nfs/internal.h) takes them: a size under
 * 1024 octets (its NFS_MIN_FILE_IO_SIZE), 0 included, is replaced by 4096 (NFS_DEF_FILE_IO_SIZE).
 * A server announcing 0 would otherwise have the client READ nothing for ever, or write nothing
 * into a file it had just truncated.
 */
public final class TransferSizes {

    /** The smallest announced size taken (Linux's NFS_MIN_FILE_IO_SIZE). */
    public static final int MIN = 1024;

    /** What a smaller one is replaced by (Linux's NFS_DEF_FILE_IO_SIZE). */
    public static final int DEFAULT = 4096;

    private TransferSizes() {
    }

    /** The size for {@code announced} octets, at most {@code limit} (the client's own). */
    public static int of(int limit, long announced) {
        return (int) Math.min(limit, announced >= MIN ? announced : DEFAULT);
    }
}
