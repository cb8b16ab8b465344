package org.iwarp4j.tools.bench;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.function.Function;

/**
 * {@code --chart FILE.svg} (or {@code .html}): bandwidth (bandwidth tests) or typical one-way latency
 * (latency tests) against message size, one line per transport — RDMA, plain TCP, and any other TCP
 * baseline the rows carry — with the size axis in powers of two (log scale). Hand-written SVG, one
 * {@code <circle class="point SERIES">} per size and series, so that a test (or a person) can count
 * them; no script, no external resource.
 */
public final class BenchChart {

    private static final int WIDTH = 720;
    private static final int HEIGHT = 420;
    private static final int LEFT = 80;
    private static final int RIGHT = 150;
    private static final int TOP = 40;
    private static final int BOTTOM = 60;
    private static final String[] COLOURS = {"#1f77b4", "#d62728", "#2ca02c", "#9467bd"};

    private BenchChart() {
    }

    /** One line of the chart: a name and a figure per size ({@code NaN} where there is none). */
    record Series(String name, String cssClass, List<double[]> points) {
    }

    /** The SVG document. */
    public static String svg(BenchSettings settings, List<BenchRow> rows, boolean reportGbits) {
        boolean latency = settings.test().isLatency();
        String unit = latency ? "usec (one-way, typical)" : reportGbits ? "Gb/sec" : "MB/sec";
        List<Series> series = new ArrayList<>();
        series.add(new Series("RDMA (" + settings.test().operation() + ")", "rdma", points(rows,
                row -> latency ? typical(row.rdmaLatency()) : average(row.rdmaBandwidth(), reportGbits))));
        List<double[]> tcp = points(rows,
                row -> latency ? typical(row.tcpLatency()) : average(row.tcpBandwidth(), reportGbits));
        if (!tcp.isEmpty()) {
            series.add(new Series("plain TCP", "tcp", tcp));
        }
        List<double[]> tcpCopy = latency ? List.of() : points(rows, row -> average(row.tcpCopyBandwidth(), reportGbits));
        if (!tcpCopy.isEmpty()) {
            series.add(new Series("plain TCP with copy", "tcp-copy", tcpCopy));
        }
        double maxY = 0;
        int minExp = Integer.MAX_VALUE;
        int maxExp = Integer.MIN_VALUE;
        for (Series s : series) {
            for (double[] p : s.points()) {
                maxY = Math.max(maxY, p[1]);
                minExp = Math.min(minExp, exponent(p[0]));
                maxExp = Math.max(maxExp, exponent(p[0]));
            }
        }
        if (minExp == Integer.MAX_VALUE) {
            minExp = 0;
            maxExp = 1;
        }
        if (maxExp == minExp) {
            maxExp = minExp + 1;
        }
        maxY = niceCeiling(maxY <= 0 ? 1 : maxY * 1.05);
        int plotW = WIDTH - LEFT - RIGHT;
        int plotH = HEIGHT - TOP - BOTTOM;
        StringBuilder svg = new StringBuilder();
        svg.append("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
        svg.append(String.format(Locale.ROOT, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\""
                + " viewBox=\"0 0 %d %d\" font-family=\"sans-serif\" font-size=\"12\">%n", WIDTH, HEIGHT, WIDTH, HEIGHT));
        svg.append(String.format(Locale.ROOT, "  <title>iwarp bench %s: %s against message size</title>%n",
                settings.test().command(), latency ? "latency" : "bandwidth"));
        svg.append("  <rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n");
        svg.append(String.format(Locale.ROOT, "  <text x=\"%d\" y=\"22\" font-size=\"14\">iwarp bench %s (%s): %s</text>%n",
                LEFT, settings.test().command(), settings.test().perftestName(), escape(unit)));
        // axes and grid
        svg.append(String.format(Locale.ROOT, "  <g class=\"axes\" stroke=\"#444\">%n    <line x1=\"%d\" y1=\"%d\" x2=\"%d\""
                + " y2=\"%d\"/>%n    <line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\"/>%n  </g>%n", LEFT, TOP + plotH,
                LEFT + plotW, TOP + plotH, LEFT, TOP, LEFT, TOP + plotH));
        svg.append("  <g class=\"x-ticks\" text-anchor=\"middle\">\n");
        int step = Math.max(1, (maxExp - minExp + 1) / 12);
        for (int e = minExp; e <= maxExp; e += step) {
            double x = LEFT + (e - minExp) * (double) plotW / (maxExp - minExp);
            svg.append(String.format(Locale.ROOT, "    <line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" stroke=\"#444\"/>"
                    + "<text x=\"%.1f\" y=\"%d\">%s</text>%n", x, TOP + plotH, x, TOP + plotH + 5, x, TOP + plotH + 18,
                    sizeLabel(e)));
        }
        svg.append("  </g>\n");
        svg.append(String.format(Locale.ROOT, "  <text x=\"%d\" y=\"%d\" text-anchor=\"middle\">message size (octets, log"
                + " scale)</text>%n", LEFT + plotW / 2, HEIGHT - 15));
        svg.append("  <g class=\"y-ticks\" text-anchor=\"end\">\n");
        for (int i = 0; i <= 5; i++) {
            double v = maxY * i / 5;
            double y = TOP + plotH - v / maxY * plotH;
            svg.append(String.format(Locale.ROOT, "    <line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" stroke=\"#ddd\"/>"
                    + "<text x=\"%d\" y=\"%.1f\">%s</text>%n", LEFT, y, LEFT + plotW, y, LEFT - 6, y + 4, number(v)));
        }
        svg.append("  </g>\n");
        svg.append(String.format(Locale.ROOT, "  <text transform=\"translate(18,%d) rotate(-90)\" text-anchor=\"middle\">"
                + "%s</text>%n", TOP + plotH / 2, escape(unit)));
        for (int i = 0; i < series.size(); i++) {
            Series s = series.get(i);
            String colour = COLOURS[i % COLOURS.length];
            StringBuilder path = new StringBuilder();
            StringBuilder dots = new StringBuilder();
            for (double[] p : s.points()) {
                double x = LEFT + (log2(p[0]) - minExp) * plotW / (maxExp - minExp);
                double y = TOP + plotH - p[1] / maxY * plotH;
                path.append(path.length() == 0 ? "" : " ").append(String.format(Locale.ROOT, "%.1f,%.1f", x, y));
                dots.append(String.format(Locale.ROOT, "    <circle class=\"point %s\" cx=\"%.1f\" cy=\"%.1f\" r=\"3\""
                        + " fill=\"%s\"><title>%d octets: %s</title></circle>%n", s.cssClass(), x, y, colour,
                        (long) p[0], number(p[1])));
            }
            svg.append(String.format(Locale.ROOT, "  <g class=\"series %s\">%n", s.cssClass()));
            svg.append(String.format(Locale.ROOT, "    <polyline fill=\"none\" stroke=\"%s\" stroke-width=\"2\""
                    + " points=\"%s\"/>%n", colour, path));
            svg.append(dots);
            int ly = TOP + 10 + 18 * i;
            svg.append(String.format(Locale.ROOT, "    <line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"%s\""
                    + " stroke-width=\"2\"/><text x=\"%d\" y=\"%d\">%s</text>%n", LEFT + plotW + 10, ly,
                    LEFT + plotW + 30, ly, colour, LEFT + plotW + 35, ly + 4, escape(s.name())));
            svg.append("  </g>\n");
        }
        svg.append("</svg>\n");
        return svg.toString();
    }

    /** The SVG in a minimal HTML page (for {@code --chart FILE.html}). */
    public static String html(BenchSettings settings, List<BenchRow> rows, boolean reportGbits) {
        String svg = svg(settings, rows, reportGbits);
        svg = svg.substring(svg.indexOf("<svg"));
        return "<!DOCTYPE html>\n<html lang=\"en\">\n<head><meta charset=\"utf-8\"><title>iwarp bench "
                + settings.test().command() + "</title></head>\n<body>\n" + svg + "</body>\n</html>\n";
    }

    private static List<double[]> points(List<BenchRow> rows, Function<BenchRow, Double> figure) {
        List<double[]> points = new ArrayList<>();
        for (BenchRow row : rows) {
            Double y = figure.apply(row);
            if (y != null && !y.isNaN()) {
                points.add(new double[] {row.size(), y});
            }
        }
        return points;
    }

    private static Double typical(LatencyResult r) {
        return r == null ? null : r.typical();
    }

    private static Double average(BandwidthResult r, boolean gbits) {
        return r == null ? null : gbits ? r.averageBytesPerSecond() * 8 / 1e9 : r.averageBytesPerSecond() / (1 << 20);
    }

    private static double log2(double v) {
        return Math.log(v) / Math.log(2);
    }

    private static int exponent(double size) {
        return (int) Math.floor(log2(size));
    }

    private static String sizeLabel(int exponent) {
        long v = 1L << exponent;
        if (v >= 1 << 30 && v % (1 << 30) == 0) {
            return (v >> 30) + "G";
        }
        if (v >= 1 << 20 && v % (1 << 20) == 0) {
            return (v >> 20) + "M";
        }
        if (v >= 1 << 10 && v % (1 << 10) == 0) {
            return (v >> 10) + "K";
        }
        return Long.toString(v);
    }

    private static double niceCeiling(double v) {
        double magnitude = Math.pow(10, Math.floor(Math.log10(v)));
        for (double m : new double[] {1, 2, 2.5, 5, 10}) {
            if (m * magnitude >= v) {
                return m * magnitude;
            }
        }
        return 10 * magnitude;
    }

    private static String number(double v) {
        return v >= 100 ? String.format(Locale.ROOT, "%.0f", v) : String.format(Locale.ROOT, "%.2f", v);
    }

    private static String escape(String s) {
        return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace("\"", "&quot;");
    }
}
