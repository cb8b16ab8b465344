package org.iwarp4j.oncrpc;

import java.util.Optional;

/**
 * What a server procedure knows about the call it serves, besides its arguments.
 *
 * @param call xid, program, version, procedure
 * @param credential the call's credential as received (RFC 5531 §8.2)
 * @param verifier the call's verifier as received
 * @param authSys the parsed AUTH_SYS credential, or null for other flavors
 * @param transport the transport the call arrived on and the caller's address
 */
public record RpcCallContext(RpcCallInfo call, OpaqueAuth credential, OpaqueAuth verifier, AuthSys authSys,
                             RpcTransportInfo transport) {

    /** The AUTH_SYS credential, if the call carries one. */
    public Optional<AuthSys> authSysCredential() {
        return Optional.ofNullable(authSys);
    }

    /** A new encoder for results, on the transport's allocator. */
    public XdrEncoder newEncoder() {
        return XdrEncoder.create(transport.alloc());
    }
}
