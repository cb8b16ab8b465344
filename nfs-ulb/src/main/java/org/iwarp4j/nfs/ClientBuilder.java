package org.iwarp4j.nfs;

import static org.iwarp4j.nfs.internal.client.Await.await;

import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.Objects;
import java.util.function.UnaryOperator;
import org.iwarp4j.oncrpc.AuthSys;
import org.iwarp4j.oncrpc.OpaqueAuth;
import org.iwarp4j.oncrpc.RpcClient;
import org.iwarp4j.oncrpc.RpcClientTransport;
import org.iwarp4j.oncrpc.RpcTcpClientTransport;
import org.iwarp4j.rdmap.Rnic;
import org.iwarp4j.rpcrdma.RpcRdmaRequester;
import org.iwarp4j.rpcrdma.RpcRdmaSettings;

/**
 * What {@link NfsClient.Builder} and {@link Nfs4Client.Builder} have in common: how the calls reach
 * the server (TCP to its address, RPC-over-RDMA, or a transport the caller made), with which
 * credential and timeout, how many READs or WRITEs a transfer keeps in flight, and opening the
 * {@link RpcClient} on that transport. Not public: each setter returns the client's own Builder,
 * which is the type callers see.
 *
 * @param <B> the client's Builder
 */
abstract class ClientBuilder<B extends ClientBuilder<B>> {

    /** RPC record room above the largest READ or WRITE payload (headers, attributes, a COMPOUND's other operations). */
    static final int RECORD_HEADROOM = 64 * 1024;

    final InetSocketAddress server;
    OpaqueAuth credential = new AuthSys(0, "iwarp4j", 0, 0, new int[0]).toOpaqueAuth();
    Duration timeout = Duration.ofSeconds(30);
    int window = 8;
    private RpcClientTransport transport;
    private Rnic rdmaRnic;
    private InetSocketAddress rdmaAddress;
    private RpcRdmaSettings rdmaSettings;

    ClientBuilder(InetSocketAddress server) {
        this.server = Objects.requireNonNull(server, "server");
    }

    @SuppressWarnings("unchecked")
    private B self() {
        return (B) this;
    }

    /** The AUTH_SYS credential of every call (default uid 0, gid 0). */
    public B credential(AuthSys credential) {
        this.credential = credential.toOpaqueAuth();
        return self();
    }

    /**
     * The credential of every call, of any flavor, e.g. {@link OpaqueAuth#NONE} for AUTH_NONE
     * (which a server maps to its anonymous user).
     */
    public B credential(OpaqueAuth credential) {
        this.credential = Objects.requireNonNull(credential, "credential");
        return self();
    }

    /** How long a call may wait for its reply (default 30 s). */
    public B timeout(Duration timeout) {
        this.timeout = Objects.requireNonNull(timeout, "timeout");
        return self();
    }

    /** Carry the calls on this transport (e.g. RPC-over-RDMA) instead of TCP to the server's address. */
    public B transport(RpcClientTransport transport) {
        this.transport = transport;
        return self();
    }

    /**
     * Carry the calls over RPC-over-RDMA to {@code address} (port 20049 by convention) on
     * {@code rnic}, with the NFS binding of the client's version (RFC 8267); the client closes the
     * connection, the caller the RNIC.
     */
    public B rdma(Rnic rnic, InetSocketAddress address) {
        return rdma(rnic, address, RpcRdmaSettings.defaults());
    }

    /** As {@link #rdma(Rnic, InetSocketAddress)} with these options (the NFS binding is set in any case). */
    public B rdma(Rnic rnic, InetSocketAddress address, RpcRdmaSettings settings) {
        this.rdmaRnic = Objects.requireNonNull(rnic, "rnic");
        this.rdmaAddress = Objects.requireNonNull(address, "address");
        this.rdmaSettings = Objects.requireNonNull(settings, "settings");
        return self();
    }

    /** READs or WRITEs in flight at once in downloads and uploads (default 8; NFSv4: at most the session's slots). */
    public B window(int calls) {
        this.window = calls;
        return self();
    }

    /**
     * The RpcClient the client calls on: on the transport given, else over RPC-over-RDMA with the
     * settings {@code forVersion} makes of the caller's, else over TCP to the server with records of
     * up to {@code maxTransfer} plus {@link #RECORD_HEADROOM} octets.
     */
    final RpcClient openRpc(int maxTransfer, UnaryOperator<RpcRdmaSettings> forVersion) {
        RpcClientTransport t;
        if (transport != null) {
            t = transport;
        } else if (rdmaRnic != null) {
            t = await(RpcRdmaRequester.connect(rdmaRnic, rdmaAddress, forVersion.apply(rdmaSettings)));
        } else {
            t = await(RpcTcpClientTransport.builder().maxRecordSize(maxTransfer + RECORD_HEADROOM).connect(server));
        }
        return rpcClient(t);
    }

    /** An RpcClient on {@code t} with this builder's credential and timeout. */
    final RpcClient rpcClient(RpcClientTransport t) {
        return RpcClient.builder(t).credential(credential).timeout(timeout).build();
    }
}
