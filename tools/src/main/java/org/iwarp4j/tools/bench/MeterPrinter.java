package org.iwarp4j.tools.bench;

import io.micrometer.core.instrument.Measurement;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tag;
import java.io.PrintWriter;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Collectors;

/**
 * {@code --metrics}: every meter of an RNIC's registry, one line each, sorted by name and tags:
 * {@code name{tag=value,...} STATISTIC=value ...}.
 */
public final class MeterPrinter {

    private MeterPrinter() {
    }

    public static void print(PrintWriter out, String title, MeterRegistry registry) {
        out.println("# meters, " + title + ":");
        List<Meter> meters = registry.getMeters().stream()
                .sorted(Comparator.comparing(MeterPrinter::key)).toList();
        if (meters.isEmpty()) {
            out.println("#   (none)");
        }
        for (Meter meter : meters) {
            StringBuilder line = new StringBuilder(key(meter));
            for (Measurement m : meter.measure()) {
                double v = m.getValue();
                line.append(' ').append(m.getStatistic()).append('=')
                        .append(v == Math.rint(v) && Math.abs(v) < 1e15 ? String.valueOf((long) v) : String.valueOf(v));
            }
            out.println(line);
        }
        out.flush();
    }

    private static String key(Meter meter) {
        List<Tag> tags = meter.getId().getTags();
        return meter.getId().getName() + (tags.isEmpty() ? "" : tags.stream()
                .map(t -> t.getKey() + "=" + t.getValue()).collect(Collectors.joining(",", "{", "}")));
    }
}
