package org.iwarp4j.oncrpc.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.IntRange;
import org.junit.jupiter.api.Test;

/**
 * The server's budget on its own: each client's share of calls and octets, the octets calls hold,
 * the order in which waiting connections get room, and places given back once.
 */
class ServerCallBudgetTest {

    private static final long NO_BOUND = Long.MAX_VALUE;

    /** A connection of {@code client} that counts how often it was woken. */
    private static final class Connection implements ServerCallBudget.Waiter {
        final Object client;
        int woken;

        Connection(Object client) {
            this.client = client;
        }

        @Override
        public void budgetFreed() {
            woken++;
        }

        @Override
        public Object client() {
            return client;
        }
    }

    @Test
    void aClientAtItsShareWaitsAndHoldsUpNoOtherClient() {
        ServerCallBudget budget = new ServerCallBudget(10, 1, NO_BOUND, NO_BOUND, NO_BOUND, NO_BOUND);
        Connection a1 = new Connection("a");
        Connection a2 = new Connection("a");
        Connection b = new Connection("b");
        ServerCallBudget.Place first = budget.tryStart(a1);
        assertThat(first).isNotNull();
        assertThat(budget.tryStart(a2)).as("client a has its one place").isNull();
        assertThat(budget.tryStart(b)).as("b does not wait behind a's connection").isNotNull();
        assertThat(budget.callsInService("a")).isEqualTo(1);

        assertThat(first.ended()).isTrue();
        assertThat(a2.woken).as("a's place given back: a's waiting connection may start").isEqualTo(1);
        assertThat(budget.tryStart(a2)).isNotNull();
        assertThat(budget.waiting()).isZero();
    }

    /**
     * A client holding its share of the octets waits for its own, and holds up no other client:
     * without a share per client, one client's large calls, each waiting first in line for the
     * server's octets, held up every other client's calls (the review of the per-client budget).
     */
    @Test
    void aClientAtItsShareOfTheOctetsHoldsUpNoOtherClient() {
        ServerCallBudget budget = new ServerCallBudget(10, 10, NO_BOUND, NO_BOUND, 100, 50);
        Connection a1 = new Connection("a");
        Connection a2 = new Connection("a");
        Connection b = new Connection("b");
        ServerCallBudget.Place first = budget.tryStart(a1, 50);
        assertThat(first).isNotNull();
        assertThat(budget.tryStart(a2, 40)).as("a's share of the octets is taken").isNull();
        assertThat(budget.tryStart(b, 40)).as("b's call fits the server and b's share").isNotNull();
        assertThat(budget.callOctetsHeld("a")).isEqualTo(50);

        first.octetsDone();
        assertThat(a2.woken).as("a's octets given back before its place").isEqualTo(1);
        assertThat(budget.tryStart(a2, 40)).isNotNull();
        assertThat(budget.callsInService("a")).isEqualTo(2);
        assertThat(budget.callOctetsHeld()).isEqualTo(80);
    }

    @Test
    void aClientHoldingNoOctetsMayStartACallLargerThanItsShare() {
        ServerCallBudget budget = new ServerCallBudget(10, 10, NO_BOUND, NO_BOUND, 100, 50);
        Connection a = new Connection("a");
        assertThat(budget.tryStart(a, 90)).isNotNull();
        assertThat(budget.tryStart(a, 1)).as("then nothing more of a's").isNull();
    }

    @Test
    void aCallWhoseOctetsDoNotFitWaitsAndSmallerOnesBehindItDoNotPassIt() {
        ServerCallBudget budget = new ServerCallBudget(10, 10, NO_BOUND, NO_BOUND, 100, NO_BOUND);
        Connection big = new Connection("a");
        Connection large = new Connection("b");
        Connection small = new Connection("c");
        Connection none = new Connection("d");
        ServerCallBudget.Place held = budget.tryStart(big, 80);
        assertThat(held).isNotNull();
        assertThat(budget.tryStart(large, 50)).as("50 more than the 20 left").isNull();
        assertThat(budget.tryStart(small, 10)).as("10 would fit, but the 50 waits before it").isNull();
        assertThat(budget.tryStart(none, 0)).as("a call needing no octets takes nothing the 50 waits for")
                .isNotNull();
        assertThat(budget.callOctetsHeld()).isEqualTo(80);

        held.ended();
        assertThat(large.woken).as("the first waiter is woken").isEqualTo(1);
        assertThat(small.woken).isZero();
        ServerCallBudget.Place second = budget.tryStart(large, 50);
        assertThat(second).isNotNull();
        assertThat(small.woken).as("room left after it: the next is woken").isEqualTo(1);
        assertThat(budget.tryStart(small, 10)).isNotNull();
        assertThat(budget.callOctetsHeld()).isEqualTo(60);
    }

    @Test
    void aCallLargerThanTheWholeBoundRunsAloneButHoldsUpNoCallWithoutOctets() {
        ServerCallBudget budget = new ServerCallBudget(10, 10, NO_BOUND, NO_BOUND, 100, NO_BOUND);
        Connection huge = new Connection("a");
        Connection other = new Connection("b");
        ServerCallBudget.Place alone = budget.tryStart(huge, 500);
        assertThat(alone).as("nothing in service: it starts").isNotNull();
        assertThat(budget.tryStart(other, 1)).as("nothing with octets beside it").isNull();
        assertThat(budget.tryStart(new Connection("c"), 0)).as("a call without octets does start").isNotNull();
        alone.ended();
        assertThat(other.woken).isEqualTo(1);
        assertThat(budget.tryStart(other, 1)).isNotNull();
    }

    @Test
    void aPlaceGivenBackTwiceCountsOnce() {
        ServerCallBudget budget = new ServerCallBudget(2, 2, NO_BOUND, NO_BOUND, 100, NO_BOUND);
        Connection c = new Connection("a");
        ServerCallBudget.Place p = budget.tryStart(c, 40);
        ServerCallBudget.Place q = budget.tryStart(c, 40);
        p.octetsDone();
        p.octetsDone();
        assertThat(budget.callOctetsHeld()).isEqualTo(40);
        assertThat(p.ended()).isTrue();
        assertThat(p.ended()).as("given back already").isFalse();
        assertThat(p.replyMade(1000)).isFalse();
        assertThat(budget.callsInService()).isEqualTo(1);
        assertThat(budget.callsInService("a")).isEqualTo(1);
        assertThat(budget.callOctetsHeld()).isEqualTo(40);
        assertThat(budget.replyOctetsHeld()).isZero();
        assertThat(q.replyMade(7)).isTrue();
        assertThat(budget.callsInService()).isZero();
        assertThat(budget.callOctetsHeld("a")).isZero();
        assertThat(budget.replyOctetsHeld()).isEqualTo(7);
    }

    @Test
    void aConnectionOfNoClientCountsAgainstNoShare() {
        ServerCallBudget budget = new ServerCallBudget(3, 1, NO_BOUND, NO_BOUND, NO_BOUND, 1);
        Connection anonymous = new Connection(null);
        assertThat(budget.tryStart(anonymous, 10)).isNotNull();
        assertThat(budget.tryStart(anonymous, 10)).isNotNull();
        assertThat(budget.tryStart(anonymous)).isNotNull();
        assertThat(budget.tryStart(anonymous)).as("the server's bound still holds").isNull();
    }

    @Test
    void aClientWhoseUnwrittenRepliesReachItsShareWaitsAndHoldsUpNoOtherClient() {
        ServerCallBudget budget = new ServerCallBudget(10, 10, 1000, 100, NO_BOUND, NO_BOUND);
        Connection a1 = new Connection("a");
        Connection a2 = new Connection("a");
        Connection b = new Connection("b");
        assertThat(budget.tryStart(a1).replyMade(60)).isTrue();
        assertThat(budget.tryStart(a2).replyMade(60)).isTrue();
        assertThat(budget.replyOctetsHeld("a")).isEqualTo(120);
        assertThat(budget.tryStart(a1)).as("a's unwritten replies are at its share").isNull();
        assertThat(budget.tryStart(b)).as("b does not wait behind a's connection").isNotNull();

        budget.replyReleased("a", 60);
        assertThat(a1.woken).as("a's reply written: below its share again").isEqualTo(1);
        assertThat(budget.tryStart(a1)).isNotNull();
        assertThat(budget.replyOctetsHeld("a")).isEqualTo(60);
        budget.replyReleased("a", 60);
        assertThat(budget.replyOctetsHeld("a")).isZero();
        assertThat(budget.replyOctetsHeld()).isZero();
    }

    @Test
    void boundsMustLeaveRoomForOneCall() {
        assertThatThrownBy(() -> new ServerCallBudget(1, 0, 1, 1, 1, 1)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new ServerCallBudget(1, 1, 1, 0, 1, 1)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new ServerCallBudget(1, 1, 1, 1, 0, 1)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new ServerCallBudget(1, 1, 1, 1, 1, 0)).isInstanceOf(IllegalArgumentException.class);
        ServerCallBudget budget = new ServerCallBudget(1, 1, 1, 1, 1, 1);
        assertThatThrownBy(() -> budget.tryStart(new Connection("a"), -1)).isInstanceOf(IllegalArgumentException.class);
    }

    /** A modelled connection: the octets of the call it waits to start, if it waits. */
    private static final class Modelled implements ServerCallBudget.Waiter {
        final Object client;
        boolean woken;
        Long waitingOctets;

        Modelled(Object client) {
            this.client = client;
        }

        @Override
        public void budgetFreed() {
            woken = true;
        }

        @Override
        public Object client() {
            return client;
        }
    }

    /**
     * Connections offer calls, are woken and try again, give calls' octets and places back and
     * sometimes stop waiting, in any order. At every step the bounds hold (calls, each client's
     * calls and octets, the server's octets: within the bound or one call's), and once every
     * wake-up has been acted on no waiting connection could start: a start refused now means the
     * budget has no room for it under its rules, never a lost wake-up. When all is given back,
     * nothing stays counted and every waiter starts.
     */
    @Property(tries = 500)
    void theBoundsHoldAndNoWaiterIsForgottenWhateverTheOrder(@ForAll("steps") List<Integer> steps,
                                                            @ForAll @IntRange(min = 1, max = 4) int maxCalls,
                                                            @ForAll @IntRange(min = 1, max = 3) int perClient) {
        long maxOctets = 100;
        long perClientOctets = 60;
        long maxReplyOctets = 200;
        long perClientReplyOctets = 80;
        ServerCallBudget budget = new ServerCallBudget(maxCalls, perClient, maxReplyOctets, perClientReplyOctets,
                maxOctets, perClientOctets);
        List<Modelled> connections = List.of(new Modelled("a"), new Modelled("a"), new Modelled("b"),
                new Modelled("c"), new Modelled(null));
        List<ServerCallBudget.Place> places = new ArrayList<>();
        List<Long> sizes = new ArrayList<>();
        List<Object> owners = new ArrayList<>();
        List<Long> replies = new ArrayList<>();
        List<Object> replyOwners = new ArrayList<>();
        for (int step : steps) {
            int kind = Math.floorMod(step, 5);
            int pick = Math.floorDiv(step, 5);
            if (kind == 0 && !places.isEmpty()) {
                int i = Math.floorMod(pick, places.size());
                long reply = Math.floorMod(pick * 29L, 5) * 20L; // 0 (ended) to 80
                if (reply == 0) {
                    places.remove(i).ended();
                } else {
                    places.remove(i).replyMade(reply);
                    replies.add(reply);
                    replyOwners.add(owners.get(i));
                }
                sizes.remove(i);
                owners.remove(i);
            } else if (kind == 4 && !replies.isEmpty()) {
                int i = Math.floorMod(pick, replies.size());
                budget.replyReleased(replyOwners.remove(i), replies.remove(i));
            } else if (kind == 1 && !places.isEmpty()) {
                int i = Math.floorMod(pick, places.size());
                places.get(i).octetsDone();
                sizes.set(i, 0L);
            } else if (kind == 2) {
                Modelled c = connections.get(Math.floorMod(pick, connections.size()));
                if (c.waitingOctets != null) {
                    budget.forget(c); // as a connection whose own bounds stop it would
                    c.waitingOctets = null;
                }
            } else {
                Modelled c = connections.get(Math.floorMod(pick, connections.size()));
                if (c.waitingOctets == null) {
                    long octets = Math.floorMod(pick * 37L, 9) * 15L; // 0 to 120
                    tryStart(budget, c, octets, places, sizes, owners);
                }
            }
            actOnWakeUps(budget, connections, places, sizes, owners);
            checkBounds(budget, maxCalls, perClient, maxOctets, perClientOctets, places, sizes, owners);
            checkReplies(budget, replies, replyOwners);
            for (Modelled c : connections) {
                if (c.waitingOctets != null) {
                    assertThat(budget.tryStart(c, c.waitingOctets)).as("a waiter that could start was not woken")
                            .isNull();
                }
            }
        }
        while (!places.isEmpty() || !replies.isEmpty()) {
            if (!places.isEmpty()) {
                places.remove(0).ended();
                sizes.remove(0);
                owners.remove(0);
            } else {
                budget.replyReleased(replyOwners.remove(0), replies.remove(0));
            }
            actOnWakeUps(budget, connections, places, sizes, owners);
        }
        assertThat(connections).allSatisfy(c -> assertThat(c.waitingOctets).as("still waiting").isNull());
        assertThat(budget.waiting()).isZero();
        assertThat(budget.callsInService()).isZero();
        assertThat(budget.callOctetsHeld()).isZero();
        assertThat(budget.replyOctetsHeld()).isZero();
    }

    /**
     * The reply octets counted are those made and not released, in all and per client; a client
     * starts no call while its own are at its share, so they exceed it by at most what its calls in
     * service make (each reply here is at most 80 octets, a client has at most 3 calls).
     */
    private static void checkReplies(ServerCallBudget budget, List<Long> replies, List<Object> replyOwners) {
        assertThat(budget.replyOctetsHeld()).isEqualTo(replies.stream().mapToLong(Long::longValue).sum());
        for (Object client : new Object[] {"a", "b", "c"}) {
            long held = 0;
            for (int i = 0; i < replies.size(); i++) {
                if (client.equals(replyOwners.get(i))) {
                    held += replies.get(i);
                }
            }
            assertThat(budget.replyOctetsHeld(client)).isEqualTo(held).isLessThan(80 + 3 * 80);
        }
    }

    private static void tryStart(ServerCallBudget budget, Modelled c, long octets, List<ServerCallBudget.Place> places,
                                 List<Long> sizes, List<Object> owners) {
        c.woken = false;
        ServerCallBudget.Place p = budget.tryStart(c, octets);
        if (p == null) {
            c.waitingOctets = octets;
        } else {
            c.waitingOctets = null;
            places.add(p);
            sizes.add(octets);
            owners.add(c.client);
        }
    }

    /** Each woken waiter tries again, as a connection's event loop would, until no wake-up is left. */
    private static void actOnWakeUps(ServerCallBudget budget, List<Modelled> connections,
                                     List<ServerCallBudget.Place> places, List<Long> sizes, List<Object> owners) {
        boolean any = true;
        while (any) {
            any = false;
            for (Modelled c : connections) {
                if (c.woken) {
                    c.woken = false;
                    if (c.waitingOctets != null) {
                        any = true;
                        tryStart(budget, c, c.waitingOctets, places, sizes, owners);
                    }
                }
            }
        }
    }

    private static void checkBounds(ServerCallBudget budget, int maxCalls, int perClient, long maxOctets,
                                    long perClientOctets, List<ServerCallBudget.Place> places, List<Long> sizes,
                                    List<Object> owners) {
        long held = sizes.stream().mapToLong(Long::longValue).sum();
        assertThat(budget.callsInService()).isEqualTo(places.size()).isLessThanOrEqualTo(maxCalls);
        assertThat(budget.callOctetsHeld()).isEqualTo(held);
        long holding = sizes.stream().filter(s -> s > 0).count();
        assertThat(held <= maxOctets || holding == 1).as("octets %d over the bound with %d calls holding some",
                held, holding).isTrue();
        for (Object client : new Object[] {"a", "b", "c"}) {
            long calls = owners.stream().filter(client::equals).count();
            long octets = 0;
            long holdingOfClient = 0;
            for (int i = 0; i < owners.size(); i++) {
                if (client.equals(owners.get(i)) && sizes.get(i) > 0) {
                    octets += sizes.get(i);
                    holdingOfClient++;
                }
            }
            assertThat(budget.callsInService(client)).isEqualTo((int) calls).isLessThanOrEqualTo(perClient);
            assertThat(budget.callOctetsHeld(client)).isEqualTo(octets);
            assertThat(octets <= perClientOctets || holdingOfClient == 1)
                    .as("client %s holds %d octets in %d calls", client, octets, holdingOfClient).isTrue();
        }
    }

    @Provide
    Arbitrary<List<Integer>> steps() {
        return Arbitraries.integers().between(0, 200).list().ofMaxSize(60);
    }
}
