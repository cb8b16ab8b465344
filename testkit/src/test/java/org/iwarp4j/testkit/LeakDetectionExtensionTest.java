package org.iwarp4j.testkit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.platform.engine.discovery.DiscoverySelectors.selectClass;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.buffer.Unpooled;
import io.netty.buffer.UnpooledByteBufAllocator;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.platform.engine.TestExecutionResult;
import org.junit.platform.testkit.engine.EngineTestKit;
import org.junit.platform.testkit.engine.Event;

/**
 * Runs small test classes through the Jupiter engine, in this JVM, and checks which of them the
 * extension failed. The classes below are nested and static, so neither surefire nor the engine
 * runs them on their own.
 */
class LeakDetectionExtensionTest {

    @Test
    void failsATestThatLeaksABuffer() {
        Map<String, TestExecutionResult> results = run(LeakingTests.class);

        TestExecutionResult pooled = results.get("leaksAPooledDirectBuffer()");
        assertEquals(TestExecutionResult.Status.FAILED, pooled.getStatus());
        AssertionError failure = assertInstanceOf(AssertionError.class, pooled.getThrowable().orElseThrow());
        String report = failure.getMessage();
        assertTrue(report.contains("LEAK: ByteBuf.release() was not called"), report);
        // Netty's access records: where the buffer was created and last touched.
        assertTrue(report.contains("leakPooledBuffer"), report);
        // The attribution hint names the test that allocated it.
        assertTrue(report.contains("allocated during " + LeakingTests.class.getName() + "#leaksAPooledDirectBuffer"),
                report);

        assertEquals(TestExecutionResult.Status.FAILED, results.get("leaksAnUnpooledDirectBuffer()").getStatus());
        assertEquals(TestExecutionResult.Status.FAILED, results.get("leaksADerivedBuffer()").getStatus());
    }

    @Test
    void passesTestsThatReleaseWhatTheyAllocate() {
        Map<String, TestExecutionResult> results = run(CleanTests.class);

        assertEquals(3, results.size());
        results.forEach((test, result) ->
                assertEquals(TestExecutionResult.Status.SUCCESSFUL, result.getStatus(), test + ": " + result));
    }

    @Test
    void failsEveryTestThatLeaksThroughTheSameCode() {
        // Netty reports a given record text only once per JVM. Two tests leaking on threads of their
        // own (like event loops do) produce identical stack traces; the attribution hint makes the
        // records differ, so the second test fails too.
        Map<String, TestExecutionResult> results = run(SameLeakTwice.class);

        assertEquals(TestExecutionResult.Status.FAILED, results.get("first()").getStatus());
        assertEquals(TestExecutionResult.Status.FAILED, results.get("second()").getStatus());
    }

    @Test
    void aLeakInAfterAllCodeFailsTheClass() {
        List<Event> failedContainers = EngineTestKit.engine("junit-jupiter")
                .configurationParameter("junit.jupiter.extensions.autodetection.enabled", "true")
                .selectors(selectClass(LeakInAfterAll.class))
                .execute()
                .containerEvents().failed().list();

        assertEquals(1, failedContainers.size(), failedContainers::toString);
        TestExecutionResult classResult = failedContainers.get(0).getRequiredPayload(TestExecutionResult.class);
        String report = classResult.getThrowable().orElseThrow().getMessage();
        assertTrue(report.contains("allocated during " + LeakInAfterAll.class.getName() + " (class-level code)"),
                report);
    }

    @Test
    void aLeakInBeforeAllCodeFailsTheFirstTestAndSaysWhereItCameFrom() {
        TestExecutionResult result = run(LeakInBeforeAll.class).get("nothingHere()");

        assertEquals(TestExecutionResult.Status.FAILED, result.getStatus());
        String report = result.getThrowable().orElseThrow().getMessage();
        assertTrue(report.contains("allocated during " + LeakInBeforeAll.class.getName() + " (class-level code)"),
                report);
    }

    @Test
    void countsTrackedBuffersUntilTheyAreReleasedSoCleanTestsNeedNoGarbageCollection() {
        AllocationsSinceSweep.startNew();
        ByteBuf parent = PooledByteBufAllocator.DEFAULT.directBuffer(16).writeLong(1);
        ByteBuf slice = parent.retainedSlice(0, 4);
        Unpooled.wrappedBuffer(new byte[1]); // heap wrapper: not tracked by Netty, nothing to count

        assertTrue(AttributingLeakDetectorFactory.createdBufferDetector());
        assertEquals(2, AllocationsSinceSweep.current().unreleased());
        slice.release();
        parent.release();
        assertEquals(0, AllocationsSinceSweep.current().unreleased());
    }

    private static Map<String, TestExecutionResult> run(Class<?> testClass) {
        return EngineTestKit.engine("junit-jupiter")
                .configurationParameter("junit.jupiter.extensions.autodetection.enabled", "true")
                .selectors(selectClass(testClass))
                .execute()
                .testEvents().finished().stream()
                .collect(Collectors.toMap(e -> e.getTestDescriptor().getDisplayName(),
                        e -> e.getRequiredPayload(TestExecutionResult.class), (a, b) -> a,
                        java.util.TreeMap::new));
    }

    static class LeakingTests {

        @Test
        void leaksAPooledDirectBuffer() {
            leakPooledBuffer();
        }

        @Test
        void leaksAnUnpooledDirectBuffer() {
            UnpooledByteBufAllocator.DEFAULT.directBuffer(16).writeInt(1);
        }

        @Test
        void leaksADerivedBuffer() {
            ByteBuf parent = PooledByteBufAllocator.DEFAULT.heapBuffer(16).writeLong(1);
            parent.retainedSlice(0, 4); // the slice holds a reference that is never released
            parent.release();
        }

        private static void leakPooledBuffer() {
            PooledByteBufAllocator.DEFAULT.directBuffer(16).writeInt(42);
        }
    }

    static class CleanTests {

        @Test
        void releasesAPooledBuffer() {
            ByteBuf buffer = PooledByteBufAllocator.DEFAULT.directBuffer(16).writeInt(42);
            buffer.release();
        }

        @Test
        void releasesADerivedBufferAndItsParent() {
            ByteBuf parent = ByteBufAllocator.DEFAULT.buffer(16).writeLong(1);
            ByteBuf slice = parent.retainedSlice(0, 4);
            slice.release();
            parent.release();
        }

        @Test
        void wrappedHeapBuffersAreNotTracked() {
            Unpooled.wrappedBuffer(new byte[] {1, 2, 3}).readByte();
        }
    }

    static class SameLeakTwice {

        @Test
        void first() throws InterruptedException {
            leakOnAThreadOfItsOwn();
        }

        @Test
        void second() throws InterruptedException {
            leakOnAThreadOfItsOwn();
        }

        private static void leakOnAThreadOfItsOwn() throws InterruptedException {
            Thread thread = new Thread(SameLeakTwice::leak);
            thread.start();
            thread.join();
        }

        private static void leak() {
            PooledByteBufAllocator.DEFAULT.directBuffer(8).writeByte(1);
        }
    }

    static class LeakInAfterAll {

        @AfterAll
        static void leak() {
            PooledByteBufAllocator.DEFAULT.directBuffer(8).writeByte(1);
        }

        @Test
        void nothingHere() {
        }
    }

    static class LeakInBeforeAll {

        @BeforeAll
        static void leak() {
            PooledByteBufAllocator.DEFAULT.directBuffer(8).writeByte(1);
        }

        @Test
        void nothingHere() {
        }
    }

}
