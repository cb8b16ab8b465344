package org.iwarp4j.tools.bench.internal;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadInfo;
import java.lang.management.ThreadMXBean;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.iwarp4j.tools.bench.CpuUsage;

/**
 * Reads the CPU time a measurement costs ({@link CpuUsage}): the event loops, that is every live
 * Netty event-loop thread of this process (their pool names contain {@code EventLoop}, as Netty's
 * default thread factory names the threads of {@code MultiThreadIoEventLoopGroup}, which the RNICs and
 * the TCP baselines use), and the application threads given. A run measures RDMA and TCP one after
 * the other, never at once, so the idle loops of the other side add nothing worth counting (a loop
 * blocked in {@code epoll_wait} uses no CPU). Application threads that start during a run (the
 * plain-TCP latency echo's responder, one per connection) are {@linkplain #register registered}
 * as they start, so that TCP's application figure counts its responder as RDMA's counts the RDMA
 * responder's thread.
 */
public final class CpuClock {

    private static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();

    private static final CpuClock NONE = new CpuClock(List.of(), false, false);

    private final List<Thread> applicationThreads;
    /** Registered while a run goes on; the ones that ended are let go at the next mark. */
    private final List<Thread> registered = new CopyOnWriteArrayList<>();
    private final boolean bothEnds;
    private final boolean enabled;

    /**
     * @param applicationThreads the benchmark's own threads whose CPU time counts as the application's
     * @param bothEnds           both ends run in this process
     */
    public CpuClock(List<Thread> applicationThreads, boolean bothEnds) {
        this(applicationThreads, bothEnds, true);
    }

    private CpuClock(List<Thread> applicationThreads, boolean bothEnds, boolean enabled) {
        this.applicationThreads = List.copyOf(applicationThreads);
        this.bothEnds = bothEnds;
        this.enabled = enabled;
    }

    /** A clock that reads nothing ({@link #since} returns {@code null}). */
    public static CpuClock none() {
        return NONE;
    }

    /** Whether this JVM measures thread CPU time at all (HotSpot on Linux does, by default). */
    public static boolean available() {
        return THREADS.isThreadCpuTimeSupported() && THREADS.isThreadCpuTimeEnabled();
    }

    /**
     * Counts {@code thread} as an application thread from now on: a thread registered after a mark
     * counts all its CPU time at the next, so register one as it starts. Any thread may call this.
     */
    public void register(Thread thread) {
        if (enabled) {
            registered.add(thread);
        }
    }

    /** The CPU times so far: the start of a measurement; {@code null} where unavailable. */
    public Mark mark() {
        if (!enabled || !available()) {
            return null;
        }
        registered.removeIf(t -> t.getState() == Thread.State.TERMINATED);
        Map<Long, Long> application = new HashMap<>();
        for (List<Thread> threads : List.of(applicationThreads, registered)) {
            for (Thread t : threads) {
                application.put(t.getId(), Math.max(0, THREADS.getThreadCpuTime(t.getId())));
            }
        }
        return new Mark(eventLoopNanos(), Map.copyOf(application));
    }

    /**
     * What was used since {@code start} to move {@code octets} in {@code messages}; {@code null}
     * without a mark. A thread registered since {@code start} counts from 0, one that ended since
     * counts nothing (its time can no longer be read).
     */
    public CpuUsage since(Mark start, long octets, long messages) {
        Mark now = start == null ? null : mark();
        if (now == null) {
            return null;
        }
        long application = 0;
        for (Map.Entry<Long, Long> e : now.applicationNanos.entrySet()) {
            application += Math.max(0, e.getValue() - start.applicationNanos.getOrDefault(e.getKey(), 0L));
        }
        return new CpuUsage(Math.max(0, now.eventLoopNanos - start.eventLoopNanos), application, octets, messages,
                bothEnds);
    }

    /** CPU time so far of this process's live Netty event-loop threads, in nanoseconds. */
    public static long eventLoopNanos() {
        long sum = 0;
        for (ThreadInfo info : THREADS.getThreadInfo(THREADS.getAllThreadIds())) {
            if (info != null && info.getThreadName().contains("EventLoop")) {
                sum += Math.max(0, THREADS.getThreadCpuTime(info.getThreadId()));
            }
        }
        return sum;
    }

    /** CPU times at one moment: the event loops' together, each application thread's by its id. */
    public record Mark(long eventLoopNanos, Map<Long, Long> applicationNanos) {
    }
}
