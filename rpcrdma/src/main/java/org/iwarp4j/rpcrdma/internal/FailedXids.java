package org.iwarp4j.rpcrdma.internal;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * XIDs whose RDMA Read or Write failed, by Requester host, so that after the Requester reconnects
 * and retransmits, the Responder answers ERR_CHUNK instead of repeating the operation that killed
 * the connection (RFC 8166 §4.5.3, RPC-R-067). Bounded: the oldest entries go first.
 */
public final class FailedXids {

    private final int capacity;
    private final Map<Key, Boolean> entries;

    private record Key(InetAddress host, int xid) {
    }

    public FailedXids(int capacity) {
        this.capacity = capacity;
        this.entries = new LinkedHashMap<>(16, 0.75f, false) {
            private static final long serialVersionUID = 1L;

            @Override
            protected boolean removeEldestEntry(Map.Entry<Key, Boolean> eldest) {
                return size() > FailedXids.this.capacity;
            }
        };
    }

    synchronized void add(SocketAddress requester, int xid) {
        Key k = key(requester, xid);
        if (k != null) {
            entries.put(k, Boolean.TRUE);
        }
    }

    /** True once for a failed XID: the error reply is sent once, later retransmissions are served again. */
    synchronized boolean remove(SocketAddress requester, int xid) {
        Key k = key(requester, xid);
        return k != null && entries.remove(k) != null;
    }

    private static Key key(SocketAddress requester, int xid) {
        return requester instanceof InetSocketAddress a ? new Key(a.getAddress(), xid) : null;
    }
}
