/**
 * The NFS Upper-Layer Binding to RPC-over-RDMA Version 1 (RFC 8267) as data: which XDR items of
 * which procedure or operation are DDP-eligible, how large every reply can be, where each program
 * must be offered, how NFSv4 COMPOUND results pair with Write chunks, how complex chunk lists may
 * be, and the NFSv4 callback rules.
 *
 * <ul>
 *   <li>NFS versions 2 and 3 (§4): {@link org.iwarp4j.nfs.binding.LegacyNfsBinding}.</li>
 *   <li>MOUNT, NLM, NSM, NFSACL (§5): {@link org.iwarp4j.nfs.binding.AuxiliaryProgramBinding}.</li>
 *   <li>NFS version 4.0, 4.1, 4.2 (§6): {@link org.iwarp4j.nfs.binding.Nfs4Binding},
 *       {@link org.iwarp4j.nfs.binding.WriteChunkPairing},
 *       {@link org.iwarp4j.nfs.binding.ChunkComplexity},
 *       {@link org.iwarp4j.nfs.binding.Nfs4CallbackBinding}.</li>
 *   <li>Reply size estimation (§3): {@link org.iwarp4j.nfs.binding.ReplySizeEstimate},
 *       {@link org.iwarp4j.nfs.binding.ReplySizeLimits},
 *       {@link org.iwarp4j.nfs.binding.ReplyResources}.</li>
 * </ul>
 *
 * <p>Everything here is immutable and holds no buffers.
 */
package org.iwarp4j.nfs.binding;
