package org.iwarp4j.tools.bench;

/**
 * One bandwidth measurement, perftest's {@code bw_report_data}: octets per message, messages
 * counted (all queue pairs), peak and average rate in octets per second, messages per second.
 */
public record BandwidthResult(int size, long iterations, double peakBytesPerSecond, double averageBytesPerSecond,
                              double messagesPerSecond) {

    public static BandwidthResult of(int size, long messages, long nanos, double peakBytesPerSecond) {
        double seconds = nanos / 1e9;
        double average = messages * (double) size / seconds;
        return new BandwidthResult(size, messages, Math.max(peakBytesPerSecond, average), average,
                messages / seconds);
    }
}
