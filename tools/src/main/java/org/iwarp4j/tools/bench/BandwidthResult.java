package org.iwarp4j.tools.bench;

import java.util.List;

/**
 * One bandwidth measurement, perftest's {@code bw_report_data}: octets per message, messages
 * counted (all queue pairs), peak and average rate in octets per second, messages per second.
 */
public record BandwidthResult(int size, long iterations, double peakBytesPerSecond, double averageBytesPerSecond,
                              double messagesPerSecond) {

    /**
     * {@code parts} (measurements of {@code size}-octet messages, e.g. the windows of an interleaved
     * run; {@code null} ones are skipped) as one: messages and time added up, the highest peak.
     * Nothing measured gives a result of 0 messages.
     */
    public static BandwidthResult combined(int size, List<BandwidthResult> parts) {
        long messages = 0;
        double seconds = 0;
        double peak = 0;
        for (BandwidthResult part : parts) {
            if (part == null || part.iterations() == 0) {
                continue;
            }
            messages += part.iterations();
            seconds += part.iterations() / part.messagesPerSecond();
            peak = Math.max(peak, part.peakBytesPerSecond());
        }
        if (messages == 0) {
            return new BandwidthResult(size, 0, 0, 0, 0);
        }
        return of(size, messages, Math.round(seconds * 1e9), peak);
    }

    public static BandwidthResult of(int size, long messages, long nanos, double peakBytesPerSecond) {
        double seconds = nanos / 1e9;
        double average = messages * (double) size / seconds;
        return new BandwidthResult(size, messages, Math.max(peakBytesPerSecond, average), average,
                messages / seconds);
    }
}
