package org.iwarp4j.conformance.probe.internal;

import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.iwarp4j.conformance.probe.Observation;
import org.iwarp4j.conformance.probe.Verdict;

/**
 * The observations of one run, in report order. Every documented observation is in it whatever
 * the peer does: one that a probe could not make (the connection failed, the peer refused what it
 * needed) is there as inconclusive, saying why ({@link #guard}).
 */
final class ObservationLog {

    /** A probe's observation name and the requirement it is judged under unless it says otherwise. */
    record Expect(String probe, String requirement) {
    }

    /** One probe step: makes its observations through {@link #add}. */
    interface Step {
        void run() throws IOException;
    }

    private final List<Observation> observations = new ArrayList<>();

    static Expect expect(String probe, String requirement) {
        return new Expect(probe, requirement);
    }

    /**
     * Runs one probe step and puts its observations in the order {@code expected} names them,
     * adding each one the step did not make as inconclusive: the report then always has every
     * documented observation ({@code ProbeReport.observation(name)} finds it), and a step that
     * stopped half-way (a connect that failed, octets our decoders could not take apart) costs
     * only its own observations, not the next probe's.
     */
    void guard(Step step, Expect... expected) {
        int before = observations.size();
        String why = "not observed: the probe ended before it";
        try {
            step.run();
        } catch (ProbeConnections.CannotConnect e) {
            why = "connection failed: " + e.getMessage();
        } catch (IOException e) {
            why = "connection broke: " + ProbeConnections.words(e);
        } catch (RuntimeException e) {
            why = "probe failed: " + e;
        }
        List<Observation> made = new ArrayList<>(observations.subList(before, observations.size()));
        observations.subList(before, observations.size()).clear();
        for (Expect x : expected) {
            boolean found = false;
            for (Observation o : made) {
                if (o.probe().equals(x.probe())) {
                    observations.add(o);
                    found = true;
                }
            }
            if (!found) {
                add(x.probe(), x.requirement(), Verdict.INCONCLUSIVE, why, "", facts(), 0);
            }
        }
        for (Observation o : made) {
            if (Arrays.stream(expected).noneMatch(x -> x.probe().equals(o.probe()))) {
                observations.add(o);  // not declared: kept rather than lost (a mistake of ours, seen in the report)
            }
        }
    }

    void add(String probe, String requirement, Verdict verdict, String observed, String expected,
             Map<String, Object> facts, long millis) {
        observations.add(new Observation(probe, requirement, verdict, observed, expected, facts, millis));
    }

    void add(Observation observation) {
        observations.add(observation);
    }

    /** Facts in the order given: names and values alternating (Observation promises a fixed order). */
    static Map<String, Object> facts(Object... namesAndValues) {
        Map<String, Object> facts = new LinkedHashMap<>();
        for (int i = 0; i < namesAndValues.length; i += 2) {
            facts.put((String) namesAndValues[i], namesAndValues[i + 1]);
        }
        return facts;
    }

    /** The observations so far, in report order. */
    List<Observation> observations() {
        return List.copyOf(observations);
    }
}
