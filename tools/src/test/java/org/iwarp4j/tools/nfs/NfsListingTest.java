package org.iwarp4j.tools.nfs;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/**
 * {@code iwarp nfs ls}'s lines: names, link targets and NFSv4 owner strings come from the server
 * (any user who can create a file on the export chooses them), so escape sequences in them are
 * shown escaped, not sent to the operator's terminal.
 */
class NfsListingTest {

    @Test
    void aNameWithAnEscapeSequenceIsShownEscaped() {
        NfsFileInfo entry = new NfsFileInfo("a\u001b[2Jb", '-', 0644, 1, 0, 0, 3, null);
        assertThat(NfsListing.line(entry, null, false)).isEqualTo("a\\x1b[2Jb");
    }

    @Test
    void theLongFormatEscapesTheOwnerTheGroupTheNameAndTheLinkTarget() {
        NfsFileInfo link = new NfsFileInfo("\u00e9\u007f", 'l', 0777, 1, -1, -1, 4, null, "\u001b]0;own\u0007",
                "g\u009b1m");
        assertThat(NfsListing.line(link, "t\u001b[2Jt", true))
                .isEqualTo("lrwxrwxrwx   1 \\x1b]0;own\\x07 g\\x9b1m            4 - \u00e9\\x7f -> t\\x1b[2Jt");
    }

    @Test
    void plainEntriesAreAsBefore() {
        NfsFileInfo file = new NfsFileInfo("data.bin", '-', 0644, 1, 1000, 100, 300, null);
        assertThat(NfsListing.line(file, null, true)).isEqualTo("-rw-r--r--   1  1000   100          300 - data.bin");
    }
}
