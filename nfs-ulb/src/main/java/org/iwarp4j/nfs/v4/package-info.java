/**
 * NFS version 4 minor versions 1 and 2 (RFC 8881, RFC 7862) XDR types the server and its tests
 * share: the protocol's numbers ({@link org.iwarp4j.nfs.v4.Nfs4Constants}), bitmap4, stateid4,
 * channel_attrs4 and the COMPOUND4args/COMPOUND4res headers. The operations' own arguments are
 * decoded by the server as it runs them. Immutable; each decodes from an {@code XdrDecoder} and
 * encodes to an {@code XdrEncoder}.
 */
package org.iwarp4j.nfs.v4;
