package org.iwarp4j.rdmap;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/** Runs a Java program in a child JVM with a deadline and returns what it printed (stdout and stderr). */
final class ChildJvm {

    /** Exit status and merged output of a finished child. */
    record Result(int exitCode, String output) {
    }

    private ChildJvm() {
    }

    /** This test JVM's class path, as surefire set it. */
    static String testClassPath() {
        return System.getProperty("java.class.path");
    }

    static Result run(List<String> javaArguments, long timeoutSeconds) throws IOException, InterruptedException {
        List<String> command = new ArrayList<>();
        command.add(Paths.get(System.getProperty("java.home"), "bin", "java").toString());
        command.addAll(javaArguments);
        Path log = Files.createTempFile("child-jvm", ".log");
        try {
            // Output goes to a file, not a pipe: a child that prints a lot can never block on us.
            Process process = new ProcessBuilder(command).redirectErrorStream(true)
                    .redirectOutput(log.toFile()).start();
            if (!process.waitFor(timeoutSeconds, TimeUnit.SECONDS)) {
                process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
                throw new AssertionError("child JVM still running after " + timeoutSeconds + " s: " + command
                        + "\n" + Files.readString(log, StandardCharsets.UTF_8));
            }
            return new Result(process.exitValue(), Files.readString(log, StandardCharsets.UTF_8));
        } finally {
            Files.deleteIfExists(log);
        }
    }
}
