package org.iwarp4j.interop.siw;

import org.iwarp4j.interop.peer.LinuxPeer;
import org.iwarp4j.interop.peer.LinuxPeerExtension;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * What every siw interop class shares: the Linux peer (a local siw device or the VM, from
 * {@link LinuxPeerExtension}), and siw's CRC knob put back as found after the class, whatever
 * {@link CrcMode} its cases set.
 */
@ExtendWith(LinuxPeerExtension.class)
abstract class SiwInteropTest {

    protected final LinuxPeer peer;

    SiwInteropTest(LinuxPeer peer) {
        this.peer = peer;
    }

    @AfterAll
    static void leaveSiwAsFound(LinuxPeer peer) {
        CrcMode.restore(peer);
    }
}
