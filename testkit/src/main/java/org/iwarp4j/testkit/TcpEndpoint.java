package org.iwarp4j.testkit;

import java.net.Inet6Address;
import java.net.InetAddress;

/** One end of a TCP connection: an IP address and a port. */
public record TcpEndpoint(InetAddress address, int port) {

    /** {@code 10.0.2.15:7174}; an IPv6 address in brackets, {@code [0:0:0:0:0:0:0:1]:7174}. */
    @Override
    public String toString() {
        String host = address.getHostAddress();
        return (address instanceof Inet6Address ? "[" + host + "]" : host) + ":" + port;
    }
}
