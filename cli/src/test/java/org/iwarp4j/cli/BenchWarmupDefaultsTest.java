package org.iwarp4j.cli;

import static org.assertj.core.api.Assertions.assertThat;

import org.iwarp4j.tools.bench.BenchSettings;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import picocli.CommandLine;

/**
 * {@code iwarp bench}'s warm-up defaults: long enough for a bandwidth run to measure compiled code
 * (on the 2-core development VM RDMA Write 64 KiB ran at 0.44 of TCP after 2 s and 1.02 after 8 s),
 * short per size with {@code -a}, and as given with {@code --warmup}.
 */
class BenchWarmupDefaultsTest {

    @ParameterizedTest(name = "{0} {1}")
    @CsvSource(delimiter = '|', value = {
            "write     | ''              | 8.0",
            "read      | -s 1048576      | 8.0",
            "send      | -D 5            | 8.0",
            "write     | -a              | 0.5",
            "lat-send  | ''              | 2.0",
            "lat-write | -s 64           | 2.0",
            "write     | --warmup 3      | 3.0",
            "write     | -a --warmup 0   | 0.0"})
    void warmUpSeconds(String test, String options, double expected) {
        BenchCommand.Bench bench = switch (test) {
            case "write" -> new BenchCommand.Write();
            case "read" -> new BenchCommand.Read();
            case "send" -> new BenchCommand.Send();
            case "lat-send" -> new BenchCommand.LatSend();
            case "lat-write" -> new BenchCommand.LatWrite();
            default -> throw new IllegalArgumentException(test);
        };
        new CommandLine(bench).parseArgs(options.isBlank() ? new String[0] : options.trim().split(" +"));
        BenchSettings settings = bench.settings();
        assertThat(settings.warmupSeconds()).isEqualTo(expected);
    }
}
