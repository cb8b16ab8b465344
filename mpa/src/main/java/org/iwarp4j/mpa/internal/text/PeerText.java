package org.iwarp4j.mpa.internal.text;

import java.util.Locale;

/**
 * Text a peer chose (ping data, file names, link targets, owner strings, export paths, version
 * strings, octets of a capture), made safe to print on the operator's terminal: a control
 * character there is not shown but obeyed, so a peer could set the window title ({@code ESC ] 0;
 * ... BEL}), clear the screen ({@code ESC [2J}) or worse. Each C0 control, DEL and each C1 control
 * (U+0080 to U+009F, which some terminals take as {@code ESC} plus a letter) is shown as {@code
 * \xNN}; everything else, printable non-ASCII such as "é" included, is kept.
 *
 * <p>A backslash is kept too, so a literal "\x1b" in a name reads the same as an escaped ESC: the
 * point is that nothing the peer sends acts on the terminal, and rping's ping data (rotating
 * {@code A}..{@code z}, which holds '\') must print as C rping prints it.
 *
 * <p>Lives in {@code mpa}, the module beneath everything that prints peer text ({@code conformance},
 * {@code tools} and the command built on them), so that there is one such rule, not one per command.
 */
public final class PeerText {

    private PeerText() {
    }

    /**
     * {@code text} with its control characters shown as {@code \xNN}. Octets are to be decoded
     * as ISO-8859-1 first, one character each, so that 0x80 to 0x9F are C1 controls here.
     */
    public static String escape(CharSequence text) {
        StringBuilder shown = new StringBuilder(text.length());
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            if (isControl(c)) {
                shown.append(String.format(Locale.ROOT, "\\x%02x", (int) c));
            } else {
                shown.append(c);
            }
        }
        return shown.toString();
    }

    private static boolean isControl(char c) {
        return c < 0x20 || c >= 0x7F && c < 0xA0;
    }
}
