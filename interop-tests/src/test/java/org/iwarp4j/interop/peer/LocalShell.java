package org.iwarp4j.interop.peer;

import java.io.File;
import java.io.IOException;
import java.util.List;

/** The peer is this host: commands run here, each in a session of its own. */
final class LocalShell implements PeerShell {

    @Override
    public Process launch(String shellCommand) throws IOException {
        return new ProcessBuilder(List.of("setsid", "bash", "-c", shellCommand))
                .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")))
                .start();
    }
}
