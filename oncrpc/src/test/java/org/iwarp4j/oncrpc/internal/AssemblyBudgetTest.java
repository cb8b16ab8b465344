package org.iwarp4j.oncrpc.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

/**
 * The server's budget of record octets on its own: the server's bound, served in turn, and each
 * client's share, which holds up only its own client.
 */
class AssemblyBudgetTest {

    /** A connection of {@code client} that counts its grants. */
    private static final class Connection implements AssemblyBudget.Account {
        final Object client;
        int granted;

        Connection(Object client) {
            this.client = client;
        }

        @Override
        public void reservationGranted() {
            granted++;
        }

        @Override
        public Object client() {
            return client;
        }
    }

    @Test
    void aClientAtItsShareWaitsAndHoldsUpNoOtherClient() {
        AssemblyBudget budget = new AssemblyBudget(1000, 100);
        Connection a1 = new Connection("a");
        Connection a2 = new Connection("a");
        Connection b = new Connection("b");
        assertThat(budget.reserve(a1, 80)).isTrue();
        assertThat(budget.reserve(a2, 80)).as("past a's share").isFalse();
        assertThat(budget.reserve(b, 80)).as("b is not held up behind a's waiting connection").isTrue();
        assertThat(budget.held("a")).isEqualTo(80);

        budget.release(a1, 80);
        assertThat(a2.granted).as("a's octets given back: a's waiting reservation is granted").isEqualTo(1);
        assertThat(budget.held("a")).isEqualTo(80);
        assertThat(budget.held()).isEqualTo(160);
        assertThat(budget.waiting()).isZero();
    }

    @Test
    void aReservationLargerThanTheShareIsGrantedWhenItsClientHoldsNothing() {
        AssemblyBudget budget = new AssemblyBudget(1000, 100);
        Connection a1 = new Connection("a");
        Connection a2 = new Connection("a");
        assertThat(budget.reserve(a1, 500)).isTrue();
        assertThat(budget.reserve(a2, 1)).isFalse();
        budget.release(a1, 500);
        assertThat(a2.granted).isEqualTo(1);
        assertThat(budget.held("a")).isEqualTo(1);
    }

    @Test
    void aReservationWaitingForTheServersOctetsHoldsUpTheOnesBehindIt() {
        AssemblyBudget budget = new AssemblyBudget(100, 100);
        Connection a = new Connection("a");
        Connection b = new Connection("b");
        Connection c = new Connection("c");
        assertThat(budget.reserve(a, 90)).isTrue();
        assertThat(budget.reserve(b, 50)).isFalse();
        assertThat(budget.reserve(c, 5)).as("it would fit, but b came first").isFalse();
        budget.release(a, 90);
        assertThat(b.granted).isEqualTo(1);
        assertThat(c.granted).isEqualTo(1);
        assertThat(budget.held()).isEqualTo(55);
    }

    @Test
    void octetsTakenWithoutWaitingCountAgainstTheClientsShare() {
        AssemblyBudget budget = new AssemblyBudget(1000, 100);
        Connection a1 = new Connection("a");
        Connection a2 = new Connection("a");
        budget.take(a1, 150);
        assertThat(budget.held("a")).isEqualTo(150);
        assertThat(budget.reserve(a2, 10)).isFalse();
        budget.release(a1, 150);
        assertThat(a2.granted).isEqualTo(1);
        assertThat(budget.held("a")).isEqualTo(10);
    }

    /** A client's later reservations do not pass its own that waits for its share: first come, first served. */
    @Test
    void aClientsLaterReservationsWaitBehindItsWaiterHeldByItsShare() {
        AssemblyBudget budget = new AssemblyBudget(1000, 100);
        Connection a1 = new Connection("a");
        Connection a2 = new Connection("a");
        Connection a3 = new Connection("a");
        Connection b = new Connection("b");
        assertThat(budget.reserve(a1, 90)).isTrue();
        assertThat(budget.reserve(a2, 50)).isFalse();
        assertThat(budget.reserve(a3, 5)).as("it would fit a's share, but a2 came first").isFalse();
        assertThat(budget.reserve(b, 5)).as("another client is not held up").isTrue();
        budget.release(a1, 90);
        assertThat(a2.granted).isEqualTo(1);
        assertThat(a3.granted).isEqualTo(1);

        AssemblyBudget oneClient = new AssemblyBudget(100, 100); // the share raised to the server's bound
        Connection c1 = new Connection("c");
        Connection c2 = new Connection("c");
        Connection c3 = new Connection("c");
        assertThat(oneClient.reserve(c1, 90)).isTrue();
        assertThat(oneClient.reserve(c2, 50)).isFalse();
        assertThat(oneClient.reserve(c3, 5)).isFalse();
    }

    @Test
    void withoutAShareOneClientMayHoldTheWholeBudget() {
        AssemblyBudget budget = new AssemblyBudget(100);
        assertThat(budget.reserve(new Connection("a"), 90)).isTrue();
        assertThat(budget.reserve(new Connection("a"), 10)).isTrue();
        assertThat(budget.held("a")).isEqualTo(100);
    }

    /**
     * Octets taken without waiting may put a client at its share: its waiter then no longer holds
     * the others up, and one behind it that fits is granted at once, not at the next give-back.
     */
    @Test
    void octetsTakenGrantAReservationThatNoLongerWaitsBehindAnother() {
        AssemblyBudget budget = new AssemblyBudget(100, 60);
        Connection a1 = new Connection("a");
        Connection a2 = new Connection("a");
        Connection b = new Connection("b");
        Connection c = new Connection("c");
        assertThat(budget.reserve(a1, 30)).isTrue();
        assertThat(budget.reserve(b, 50)).isTrue();
        assertThat(budget.reserve(a2, 25)).as("the server's octets are short").isFalse();
        assertThat(budget.reserve(c, 5)).as("behind a2").isFalse();
        budget.take(a1, 10); // a at 40: a2 now waits for its share
        assertThat(c.granted).isEqualTo(1);
        assertThat(a2.granted).isZero();
    }

    @Test
    void boundsMustLeaveRoomForOneOctet() {
        assertThatThrownBy(() -> new AssemblyBudget(0, 1)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new AssemblyBudget(1, 0)).isInstanceOf(IllegalArgumentException.class);
    }
}
