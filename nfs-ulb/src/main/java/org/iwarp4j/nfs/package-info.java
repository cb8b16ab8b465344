/**
 * NFS over ONC RPC, on TCP and on RPC-over-RDMA with the NFS upper-layer binding (RFC 8267).
 *
 * <ul>
 *   <li>Server: {@link org.iwarp4j.nfs.NfsServer} exports a directory over NFSv3 (RFC 1813) with
 *       MOUNT v3, and NFSv4.1/4.2 (RFC 8881, RFC 7862), to the clients its
 *       {@link org.iwarp4j.nfs.ExportOptions} admit ({@link org.iwarp4j.nfs.ClientNetwork}).</li>
 *   <li>Clients: {@link org.iwarp4j.nfs.NfsClient} (NFSv3) and {@link org.iwarp4j.nfs.Nfs4Client}
 *       (NFSv4.1), each from its {@code builder}, over TCP or RDMA; a status other than OK is an
 *       {@link org.iwarp4j.nfs.NfsStatusException} or {@link org.iwarp4j.nfs.Nfs4StatusException}.</li>
 *   <li>Sub-packages: {@code binding} (RFC 8267's tables of DDP-eligible data), {@code mount}
 *       (MOUNT v3), {@code v3} and {@code v4} (the protocols' types).</li>
 * </ul>
 *
 * <p>The guide is {@code docs/nfs.md}.
 */
package org.iwarp4j.nfs;
