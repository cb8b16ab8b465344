/**
 * JMH benchmarks for iwarp4j's hot paths. Built as {@code benchmarks/target/benchmarks.jar} by
 * {@code ./mvnw -pl benchmarks -am package -DskipTests} from the checkout root; never run by the build. Run them with
 * {@code java -jar benchmarks/target/benchmarks.jar <regex> [JMH options]}.
 *
 * <p>Throughput benchmarks report ops/s as the primary score and, as the secondary score
 * {@code :megabytes}, ULPDU payload megabytes (10^6 octets) per second, so MB/s is printed by JMH
 * itself and is in the JSON result.
 */
package org.iwarp4j.benchmarks;
