package org.iwarp4j.tools.pcap;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.function.IntSupplier;

/**
 * The recording of the {@code iwarp} command running on this thread, if it was given
 * {@code --pcap FILE} or run by {@code iwarp pcap FILE}. A command asks {@link #current()} once,
 * when it starts, and passes the recording on explicitly (the settings' {@code pcap}, {@code
 * Rnic.Builder.capture}); the library code below never looks here. Threads a command starts
 * inherit its recording.
 */
public final class CommandCapture {

    /** Exit status when FILE cannot be written, as for a bad command line. */
    public static final int EXIT_CANNOT_WRITE = 2;
    /** Exit status of a command that succeeded but whose recording is incomplete. */
    public static final int EXIT_INCOMPLETE = 1;

    private static final InheritableThreadLocal<PcapRecording> CURRENT = new InheritableThreadLocal<>();

    private CommandCapture() {
    }

    /** This thread's command's recording, or {@code null} if it records nothing (or no longer). */
    public static PcapRecording current() {
        PcapRecording recording = CURRENT.get();
        return recording == null || recording.isClosed() ? null : recording;
    }

    /** The reason in words, not {@code java.nio.file.NoSuchFileException: FILE} (the file is named already). */
    private static String why(Exception e) {
        if (e instanceof java.nio.file.NoSuchFileException) {
            return "its directory does not exist";
        }
        if (e instanceof java.nio.file.AccessDeniedException) {
            return "permission denied";
        }
        if (e instanceof java.nio.file.FileSystemException fs && fs.getReason() != null) {
            return fs.getReason();
        }
        return e.getMessage() != null ? e.getMessage() : e.getClass().getSimpleName();
    }

    /**
     * Runs {@code command} with every connection it makes recorded into {@code file}, then closes
     * the file and reports on {@code err} what was recorded. Returns the command's exit status;
     * {@link #EXIT_CANNOT_WRITE} if the file cannot be created, {@link #EXIT_INCOMPLETE} if the
     * command succeeded but the file could not be written to the end.
     */
    public static int run(Path file, PrintWriter err, IntSupplier command) {
        PcapRecording recording;
        try {
            recording = PcapRecording.open(file);
        } catch (IOException | RuntimeException e) {
            err.println("iwarp pcap: cannot write " + file + ": " + why(e));
            err.flush();
            return EXIT_CANNOT_WRITE;
        }
        // A server is often stopped with Ctrl-C: the file must still end on a whole record.
        Thread closeOnExit = new Thread(recording::close, "iwarp-pcap-close");
        Runtime.getRuntime().addShutdownHook(closeOnExit);
        PcapRecording outer = CURRENT.get();
        CURRENT.set(recording);
        int status;
        try {
            status = command.getAsInt();
        } finally {
            restore(outer);
            recording.close();
            try {
                Runtime.getRuntime().removeShutdownHook(closeOnExit);
            } catch (IllegalStateException shuttingDown) {
                // the hook runs anyway, closing again does nothing
            }
        }
        IOException failure = recording.failure();
        if (failure != null) {
            err.println("iwarp pcap: " + file + " is incomplete: " + failure);
            err.flush();
            return status == 0 ? EXIT_INCOMPLETE : status;
        }
        err.printf("iwarp pcap: %d connection%s recorded in %s (%d octets)%n", recording.connections(),
                recording.connections() == 1 ? "" : "s", file, recording.size());
        err.flush();
        return status;
    }

    private static void restore(PcapRecording outer) {
        if (outer == null) {
            CURRENT.remove();
        } else {
            CURRENT.set(outer);
        }
    }
}
