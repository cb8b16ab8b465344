package org.iwarp4j.conformance.probe;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.InetSocketAddress;
import org.junit.jupiter.api.Test;

/** {@code iwarp probe HOST[:PORT]}: how the argument becomes an address. */
class ProbeTargetTest {

    @Test
    void hostAlonePicksRpingsPort() {
        assertThat(Probe.target("127.0.0.1")).isEqualTo(new InetSocketAddress("127.0.0.1", 7174));
    }

    @Test
    void hostAndPort() {
        assertThat(Probe.target("127.0.0.1:20049")).isEqualTo(new InetSocketAddress("127.0.0.1", 20049));
    }

    @Test
    void ipv6WithAndWithoutPort() {
        assertThat(Probe.target("[::1]:18515")).isEqualTo(new InetSocketAddress("::1", 18515));
        assertThat(Probe.target("[::1]")).isEqualTo(new InetSocketAddress("::1", 7174));
        assertThat(Probe.target("::1")).isEqualTo(new InetSocketAddress("::1", 7174));
    }

    @Test
    void badPortsAndEmptyHostsAreRefused() {
        assertThatThrownBy(() -> Probe.target("h:x")).hasMessage("port is not a number: x");
        assertThatThrownBy(() -> Probe.target("h:0")).hasMessage("port out of range: 0");
        assertThatThrownBy(() -> Probe.target("h:65536")).hasMessage("port out of range: 65536");
        assertThatThrownBy(() -> Probe.target(":1")).hasMessage("no host in :1");
        assertThatThrownBy(() -> Probe.target("[::1")).hasMessage("no ']' in [::1");
    }
}
