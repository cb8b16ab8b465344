package org.iwarp4j.mpa;

import static org.assertj.core.api.Assertions.assertThat;

import org.iwarp4j.mpa.internal.text.PeerText;
import org.junit.jupiter.api.Test;

/** {@link PeerText}: what a peer's text looks like on the operator's terminal. */
class PeerTextTest {

    @Test
    void controlCharactersAreShownEscaped() {
        // a title change (OSC ... BEL), a screen clear (CSI 2J), DEL and C1 CSI (U+009B)
        assertThat(PeerText.escape("a\u001b]0;x\u0007b\u001b[2Jc\u007fd\u009be\u0000\n"))
                .isEqualTo("a\\x1b]0;x\\x07b\\x1b[2Jc\\x7fd\\x9be\\x00\\x0a");
    }

    @Test
    void printableTextIsKeptAsItIs() {
        String text = "ls -> ../é/日本 ~ [\\] {x} \u00a0\u00ff";
        assertThat(PeerText.escape(text)).isEqualTo(text);
    }

    @Test
    void theEdgesOfTheControlRangesAreExact() {
        assertThat(PeerText.escape("\u001f\u0020\u007e\u007f\u009f\u00a0"))
                .isEqualTo("\\x1f\u0020\u007e\\x7f\\x9f\u00a0");
    }
}
