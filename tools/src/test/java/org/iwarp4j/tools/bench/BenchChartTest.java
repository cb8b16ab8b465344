package org.iwarp4j.tools.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import javax.xml.parsers.DocumentBuilderFactory;
import org.iwarp4j.mpa.NegotiationMode;
import org.iwarp4j.rdmap.Transport;
import org.junit.jupiter.api.Test;
import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.NodeList;

/**
 * The chart's SVG: well-formed XML, one point per size and transport, the size axis in powers of two
 * (equal steps for each doubling), higher figures drawn higher.
 */
class BenchChartTest {

    @Test
    void onePointPerSizeOnALogSizeAxis() throws Exception {
        List<Integer> sizes = BenchSettings.allSizes(1 << 16);
        BenchSettings settings = new BenchSettings(BenchTest.WRITE, sizes, 10, 0, 0, 1, 16, NegotiationMode.REQUIRE,
                false, 2, 0, Transport.NIO, true);
        List<BenchRow> rows = new ArrayList<>();
        for (int size : sizes) {
            double rdma = size * 1000.0; // octets per second, rising with the size
            rows.add(new BenchRow(size, new BandwidthResult(size, 10, rdma, rdma, 1000), null,
                    new BandwidthResult(size, 10, rdma / 2, rdma / 2, 500), null, false,
                    new BandwidthResult(size, 10, rdma / 4, rdma / 4, 250)));
        }
        Document doc = parse(BenchChart.svg(settings, rows, false));
        List<double[]> rdma = points(doc, "rdma");
        List<double[]> tcp = points(doc, "tcp");
        List<double[]> tcpCopy = points(doc, "tcp-copy");
        assertThat(rdma).hasSize(sizes.size());
        assertThat(tcp).hasSize(sizes.size());
        assertThat(tcpCopy).as("both TCP baselines are drawn").hasSize(sizes.size());
        double step = rdma.get(1)[0] - rdma.get(0)[0];
        for (int i = 1; i < rdma.size(); i++) {
            assertThat(rdma.get(i)[0] - rdma.get(i - 1)[0]).as("x step %d", i).isCloseTo(step,
                    org.assertj.core.data.Offset.offset(0.2));
            assertThat(rdma.get(i)[1]).as("y of size %d is higher (smaller y)", sizes.get(i))
                    .isLessThanOrEqualTo(rdma.get(i - 1)[1]);
            assertThat(tcp.get(i)[1]).as("TCP at half RDMA is drawn lower").isGreaterThanOrEqualTo(rdma.get(i)[1]);
            assertThat(tcpCopy.get(i)[1]).as("TCP with copy at a quarter is lower still")
                    .isGreaterThanOrEqualTo(tcp.get(i)[1]);
        }
    }

    @Test
    void latencyChartsPlotTheTypicalLatencyAndToleratePartialRows() throws Exception {
        BenchSettings settings = new BenchSettings(BenchTest.LAT_SEND, List.of(2, 4, 8), 10, 0, 0, 1, 1,
                NegotiationMode.REQUIRE, false, 2, 0, Transport.NIO, true);
        List<BenchRow> rows = List.of(
                new BenchRow(2, null, LatencyResult.ofRoundTrips(2, new long[] {20_000}, 1), null,
                        LatencyResult.ofRoundTrips(2, new long[] {10_000}, 1), false),
                new BenchRow(4, null, LatencyResult.ofRoundTrips(4, new long[] {22_000}, 1), null, null, true));
        Document doc = parse(BenchChart.html(settings, rows, false).replaceAll("(?s)^.*?(<svg)", "$1")
                .replaceAll("(?s)</body>.*$", ""));
        assertThat(points(doc, "rdma")).hasSize(2);
        assertThat(points(doc, "tcp")).hasSize(1);
    }

    private static Document parse(String xml) throws Exception {
        DocumentBuilderFactory factory = DocumentBuilderFactory.newInstance();
        factory.setNamespaceAware(true);
        return factory.newDocumentBuilder().parse(new ByteArrayInputStream(xml.getBytes(StandardCharsets.UTF_8)));
    }

    private static List<double[]> points(Document doc, String series) {
        NodeList circles = doc.getElementsByTagNameNS("http://www.w3.org/2000/svg", "circle");
        List<double[]> points = new ArrayList<>();
        for (int i = 0; i < circles.getLength(); i++) {
            Element c = (Element) circles.item(i);
            if (c.getAttribute("class").equals("point " + series)) {
                points.add(new double[] {Double.parseDouble(c.getAttribute("cx")), Double.parseDouble(c.getAttribute("cy"))});
            }
        }
        return points;
    }
}
