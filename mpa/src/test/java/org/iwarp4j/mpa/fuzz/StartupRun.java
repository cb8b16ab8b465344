package org.iwarp4j.mpa.fuzz;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.UnpooledByteBufAllocator;
import io.netty.channel.embedded.EmbeddedChannel;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import org.iwarp4j.mpa.MpaException;
import org.iwarp4j.mpa.MpaSettings;
import org.iwarp4j.mpa.MpaStartupHandler;
import org.iwarp4j.mpa.NegotiationMode;
import org.iwarp4j.testkit.FuzzInput;

/**
 * The MPA connection setup targets' common part (RFC 5044 §7.1, RFC 6581): the peer's octets,
 * startup frame and whatever follows it, go to our Responder or our Initiator. Input layout: octet 0 = our settings (bits 0-1 markers mode, bits 2-3 CRC
 * mode, bit 4 revision 1 instead of 2, bit 5 peer-to-peer, bit 6 the Responder rejects), octet 1
 * = chunking seed, then the peer's stream. Seeds: both directions of the Linux siw captures
 * (startup frames with the RFC 6581 word, then FPDUs) and the RFC's startup frame vectors.
 *
 * <p>Properties: an exception raised in the pipeline, before or after Full Operation, is an
 * {@link MpaException} (the type {@link MpaStartupHandler} documents for every startup failure
 * and {@code MpaFrameDecoder} for frame errors); {@link MpaStartupHandler#startup()} fails only
 * with an {@link MpaException}; once the connection has ended the startup is no longer pending;
 * nothing allocated while handling the input is left unreleased.
 */
final class StartupRun {

    private StartupRun() {
    }


    static MpaSettings settings(byte flags) {
        NegotiationMode[] modes = NegotiationMode.values();
        return MpaSettings.builder()
                .markers(modes[(flags & 3) % modes.length])
                .crc(modes[((flags >> 2) & 3) % modes.length])
                .revision((flags & 0x10) != 0 ? 1 : 2)
                .peerToPeer((flags & 0x20) != 0 && (flags & 0x10) == 0)
                .build();
    }

    static void run(byte[] input, MpaStartupHandler handler) {
        UnpooledByteBufAllocator alloc = FuzzInput.countingAllocator();
        Recorder recorder = new Recorder();
        EmbeddedChannel channel = FuzzInput.channel(alloc, handler, recorder);
        FuzzInput.feed(channel, input, 2, input[1] & 0xFF);
        channel.close();
        channel.finishAndReleaseAll();
        for (Throwable t : recorder.errors) {
            if (!(t instanceof MpaException)) {
                throw new AssertionError("undocumented exception in the MPA pipeline", t);
            }
        }
        CompletableFuture<?> startup = handler.startup();
        assertThat(startup).as("startup still pending after the connection ended").isDone();
        if (startup.isCompletedExceptionally()) {
            try {
                startup.join();
            } catch (CompletionException e) {
                if (!(e.getCause() instanceof MpaException)) {
                    throw new AssertionError("startup failed with an undocumented exception", e.getCause());
                }
            }
        }
        FuzzInput.assertNothingHeld(alloc);
    }
}
