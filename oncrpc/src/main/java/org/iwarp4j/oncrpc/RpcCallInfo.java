package org.iwarp4j.oncrpc;

/**
 * What a transport may know about a call without parsing it: its xid and the procedure it
 * names (RFC 5531 §9). An RPC-over-RDMA transport asks its Upper-Layer Binding, from these and
 * the arguments, how large the reply may be and which results are DDP-eligible (RFC 8166 §6).
 *
 * @param xid transaction id, also the first word of the call message
 * @param program program number
 * @param version program version
 * @param procedure procedure number
 */
public record RpcCallInfo(int xid, int program, int version, int procedure) {

    @Override
    public String toString() {
        return "xid 0x" + Integer.toHexString(xid) + " prog " + Integer.toUnsignedString(program) + " vers "
                + Integer.toUnsignedString(version) + " proc " + Integer.toUnsignedString(procedure);
    }
}
