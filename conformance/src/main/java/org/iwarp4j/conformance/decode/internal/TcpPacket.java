package org.iwarp4j.conformance.decode.internal;

import java.net.InetSocketAddress;

/**
 * One TCP segment found in a frame.
 *
 * @param mss the MSS option of a SYN, or -1
 */
public record TcpPacket(long frame, InetSocketAddress source, InetSocketAddress destination, long sequence,
                        int flags, int mss, byte[] payload) {

    public static final int FIN = 0x01;
    public static final int SYN = 0x02;
    public static final int RST = 0x04;
    public static final int ACK = 0x10;

    public boolean has(int flag) {
        return (flags & flag) != 0;
    }
}
