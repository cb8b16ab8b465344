package org.iwarp4j.nfs;

import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.Arrays;
import java.util.Objects;

/**
 * A client address or network an export admits, as exports(5) writes it: {@code 192.0.2.7},
 * {@code 192.0.2.0/24}, {@code 2001:db8::/32}, or {@code *} for every client. Only address literals
 * are accepted — never host names, wildcards in names or netgroups (which knfsd also takes): a name
 * would make admission depend on DNS answers a hostile peer may control.
 *
 * <p>An IPv4 client reaching an IPv6 socket shows up as an IPv4-mapped address
 * ({@code ::ffff:192.0.2.7}); it is matched as the IPv4 address it stands for.
 */
public final class ClientNetwork {

    /** Every client ({@code *}). */
    public static final ClientNetwork EVERYONE = new ClientNetwork(null, 0);
    /** IPv4 loopback, 127.0.0.0/8. */
    public static final ClientNetwork LOOPBACK_V4 = parse("127.0.0.0/8");
    /** IPv6 loopback, ::1/128. */
    public static final ClientNetwork LOOPBACK_V6 = parse("::1/128");

    private final byte[] network;
    private final int prefix;

    private ClientNetwork(byte[] network, int prefix) {
        this.network = network;
        this.prefix = prefix;
    }

    /**
     * Parses {@code ADDRESS}, {@code ADDRESS/PREFIX} or {@code *}; host bits below the prefix are
     * ignored (as knfsd ignores them).
     *
     * @throws IllegalArgumentException for a host name, a malformed address or a prefix out of range
     */
    public static ClientNetwork parse(String spec) {
        Objects.requireNonNull(spec, "spec");
        String s = spec.strip();
        if (s.equals("*")) {
            return EVERYONE;
        }
        int slash = s.indexOf('/');
        String addressText = slash < 0 ? s : s.substring(0, slash);
        boolean ipv6 = addressText.indexOf(':') >= 0;
        if (addressText.isEmpty() || !addressText.chars().allMatch(c -> c == '.' || c == ':'
                || (ipv6 ? Character.digit(c, 16) >= 0 : Character.isDigit(c)))) {
            throw new IllegalArgumentException("an IPv4 or IPv6 address, optionally /PREFIX, or *: " + spec);
        }
        byte[] address = ipv6 ? ipv6(addressText, spec) : ipv4(addressText, spec);
        int bits = address.length * 8;
        int prefix = bits;
        if (slash >= 0) {
            try {
                prefix = Integer.parseInt(s.substring(slash + 1));
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException("prefix length is a number: " + spec, e);
            }
            if (prefix < 0 || prefix > bits) {
                throw new IllegalArgumentException("prefix length 0.." + bits + ": " + spec);
            }
        }
        return new ClientNetwork(mask(address, prefix), prefix);
    }

    /** Dotted quad only: anything else would make InetAddress look the text up as a host name. */
    private static byte[] ipv4(String text, String spec) {
        String[] parts = text.split("\\.", -1);
        if (parts.length != 4) {
            throw new IllegalArgumentException("an IPv4 address is four decimal octets: " + spec);
        }
        byte[] a = new byte[4];
        for (int i = 0; i < 4; i++) {
            if (parts[i].isEmpty() || parts[i].length() > 3 || Integer.parseInt(parts[i]) > 255) {
                throw new IllegalArgumentException("an IPv4 address is four decimal octets: " + spec);
            }
            a[i] = (byte) Integer.parseInt(parts[i]);
        }
        return a;
    }

    /** A text with ':' is only ever parsed as an IPv6 literal (no name lookup). */
    private static byte[] ipv6(String text, String spec) {
        try {
            return canonical(InetAddress.getByName(text));
        } catch (UnknownHostException e) {
            throw new IllegalArgumentException("not an IPv6 address: " + spec, e);
        }
    }

    /** Whether {@code address} lies in this network. */
    public boolean contains(InetAddress address) {
        if (network == null) {
            return true;
        }
        byte[] a = canonical(address);
        return a.length == network.length && Arrays.equals(mask(a, prefix), network);
    }

    /** An IPv4-mapped IPv6 address as its IPv4 address; any other as is. */
    private static byte[] canonical(InetAddress address) {
        byte[] a = address.getAddress();
        if (address instanceof Inet6Address && a.length == 16) {
            boolean mapped = a[10] == (byte) 0xff && a[11] == (byte) 0xff;
            for (int i = 0; i < 10 && mapped; i++) {
                mapped = a[i] == 0;
            }
            if (mapped) {
                return Arrays.copyOfRange(a, 12, 16);
            }
        }
        return a;
    }

    private static byte[] mask(byte[] address, int prefix) {
        byte[] m = address.clone();
        for (int i = 0; i < m.length; i++) {
            int keep = Math.max(0, Math.min(8, prefix - 8 * i));
            m[i] &= (byte) (0xff00 >> keep);
        }
        return m;
    }

    /** As exports(5) writes it: {@code *}, or the network address and its prefix length. */
    @Override
    public String toString() {
        if (network == null) {
            return "*";
        }
        return (network.length == 4 ? ipv4(network) : ipv6(network)) + "/" + prefix;
    }

    private static String ipv4(byte[] a) {
        return (a[0] & 0xff) + "." + (a[1] & 0xff) + "." + (a[2] & 0xff) + "." + (a[3] & 0xff);
    }

    /** RFC 5952 text: lower case, the longest run of two or more zero groups as "::". */
    private static String ipv6(byte[] a) {
        int[] g = new int[8];
        for (int i = 0; i < 8; i++) {
            g[i] = (a[2 * i] & 0xff) << 8 | (a[2 * i + 1] & 0xff);
        }
        int bestStart = -1;
        int bestLength = 1;
        for (int i = 0; i < 8; ) {
            int j = i;
            while (j < 8 && g[j] == 0) {
                j++;
            }
            if (j - i > bestLength) {
                bestStart = i;
                bestLength = j - i;
            }
            i = j == i ? i + 1 : j;
        }
        StringBuilder b = new StringBuilder();
        for (int i = 0; i < 8; i++) {
            if (i == bestStart) {
                b.append("::");
                i += bestLength - 1;
                continue;
            }
            if (b.length() > 0 && b.charAt(b.length() - 1) != ':') {
                b.append(':');
            }
            b.append(Integer.toHexString(g[i]));
        }
        return b.toString();
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof ClientNetwork other && prefix == other.prefix && Arrays.equals(network, other.network);
    }

    @Override
    public int hashCode() {
        return Arrays.hashCode(network) * 31 + prefix;
    }
}
