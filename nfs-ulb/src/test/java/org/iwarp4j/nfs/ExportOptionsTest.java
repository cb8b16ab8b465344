package org.iwarp4j.nfs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.InetAddress;
import org.junit.jupiter.api.Test;

/** {@link ExportOptions} and {@link ClientNetwork}: the safe defaults, parsing and matching of client networks. */
class ExportOptionsTest {

    private static InetAddress ip(String literal) throws Exception {
        return InetAddress.getByName(literal);
    }

    @Test
    void defaultsAreReadOnlyRootSquashLoopbackOnly() throws Exception {
        ExportOptions o = ExportOptions.defaults();
        assertThat(o.readOnly()).isTrue();
        assertThat(o.rootSquash()).isTrue();
        assertThat(o.allSquash()).isFalse();
        assertThat(o.anonUid()).isEqualTo(65534);
        assertThat(o.anonGid()).isEqualTo(65534);
        assertThat(o.admits(ip("127.0.0.1"))).isTrue();
        assertThat(o.admits(ip("127.1.2.3"))).isTrue();
        assertThat(o.admits(ip("::1"))).isTrue();
        assertThat(o.admits(ip("::ffff:127.0.0.1"))).isTrue();
        assertThat(o.admits(ip("192.0.2.1"))).isFalse();
        assertThat(o.admits(ip("2001:db8::1"))).isFalse();
        assertThat(o.admits(null)).isFalse();
        assertThat(o.describe()).isEqualTo(
                "read-only, root squash (anonuid 65534, anongid 65534), clients 127.0.0.0/8 ::1/128");
    }

    @Test
    void clientsReplaceTheLoopbackDefault() throws Exception {
        ExportOptions o = ExportOptions.builder().readWrite().rootSquash(false).client("192.0.2.0/24")
                .client("2001:db8::/32").build();
        assertThat(o.admits(ip("192.0.2.200"))).isTrue();
        assertThat(o.admits(ip("::ffff:192.0.2.7"))).isTrue();
        assertThat(o.admits(ip("192.0.3.1"))).isFalse();
        assertThat(o.admits(ip("2001:db8:1::5"))).isTrue();
        assertThat(o.admits(ip("2001:db9::5"))).isFalse();
        assertThat(o.admits(ip("127.0.0.1"))).isFalse();
        assertThat(o.describe()).isEqualTo("read-write, no root squash, clients 192.0.2.0/24 2001:db8::/32");
        assertThat(ExportOptions.builder().allSquash(true).anonUid(7).anonGid(8).client("*").build().describe())
                .isEqualTo("read-only, all squash (anonuid 7, anongid 8), clients *");
    }

    @Test
    void everyoneAdmitsEvenAnUnknownAddress() throws Exception {
        ExportOptions o = ExportOptions.builder().client(ClientNetwork.EVERYONE).build();
        assertThat(o.admits(ip("198.51.100.1"))).isTrue();
        assertThat(o.admits(null)).isTrue();
    }

    @Test
    void networksParseAndPrintAsExportsWritesThem() {
        assertThat(ClientNetwork.parse("10.1.2.3/8")).hasToString("10.0.0.0/8");
        assertThat(ClientNetwork.parse("192.0.2.7")).hasToString("192.0.2.7/32");
        assertThat(ClientNetwork.parse("10.0.0.0/0")).hasToString("0.0.0.0/0");
        assertThat(ClientNetwork.parse("::1")).hasToString("::1/128");
        assertThat(ClientNetwork.parse("2001:DB8:0:0:1:0:0:1/128")).hasToString("2001:db8::1:0:0:1/128");
        assertThat(ClientNetwork.parse("fe80::1/10")).hasToString("fe80::/10");
        assertThat(ClientNetwork.parse(" * ")).isSameAs(ClientNetwork.EVERYONE);
        assertThat(ClientNetwork.parse("10.0.0.1/8")).isEqualTo(ClientNetwork.parse("10.9.9.9/8"));
    }

    @Test
    void hostNamesAndBadPrefixesAreRefused() {
        assertThatThrownBy(() -> ClientNetwork.parse("nfs.example.org")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("an IPv4 or IPv6 address");
        assertThatThrownBy(() -> ClientNetwork.parse("localhost")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> ClientNetwork.parse("10.0.0.0/33")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("prefix length 0..32");
        assertThatThrownBy(() -> ClientNetwork.parse("::/129")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("prefix length 0..128");
        assertThatThrownBy(() -> ClientNetwork.parse("10.0.0.0/x")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> ClientNetwork.parse("")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> ClientNetwork.parse("300.1.1.1")).isInstanceOf(IllegalArgumentException.class);
    }
}
