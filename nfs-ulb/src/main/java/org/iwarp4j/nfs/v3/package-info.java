/**
 * NFS version 3 (RFC 1813) on the XDR of {@code org.iwarp4j.oncrpc}: one immutable record per
 * argument and result structure, named as in the RFC ({@code READ3args} is {@link
 * org.iwarp4j.nfs.v3.Read3Args}), each with {@code decode(XdrDecoder)} and {@code
 * encode(XdrEncoder)}.
 *
 * <p>Decoding is bounded: file handles at most 64 octets, names and paths at most 4096 octets
 * (RFC 1813 leaves them unbounded), WRITE and READ data at most the caller's limit; anything
 * beyond is an {@link org.iwarp4j.oncrpc.XdrException}, which a server answers with GARBAGE_ARGS.
 * The DDP-eligible items of RFC 8267 §4 — WRITE and READ data, SYMLINK and READLINK paths — are
 * encoded as DDP-eligible pieces, so an RPC-over-RDMA transport may move them into chunks, and
 * decoded from chunks when they arrived there. 8-octet verifiers (write, cookie, create) are
 * carried as longs with the same big-endian octets; unsigned 32-bit counts as longs.
 */
package org.iwarp4j.nfs.v3;
