"""The simulator finds planted bugs: each mutation below is a bug class the issue names, put
into the real code with monkeypatch; a bounded sweep must report it within a few seeds."""

import copy
from dataclasses import replace

import pytest
from simsweep import first_violation, plant_a_void_that_forgets_one_stake

import controller.books.ledger.store as ledger_store
import controller.rig.sim.shuffler as sim_shuffler
import controller.rig.sim.world as sim_world
import controller.table.machine as table_machine
from controller.table.deals import HandFormingDeal
from controller.table.events import PacketDelivered
from controller.table.machine import Round, TableMachine

SEEDS = range(1, 9)


def test_a_void_that_forgets_one_stake(monkeypatch):
    plant_a_void_that_forgets_one_stake(monkeypatch)
    found = first_violation("uth-gr", SEEDS, 30)
    assert found is not None
    assert found.violations[0]["invariant"] in ("void", "books"), found.violations


def test_a_void_that_returns_only_the_opening_stakes(monkeypatch):
    """The rules audit's defect: the table wagers and the blackjack doubles, splits and
    insurances placed during the round were not in the void's record."""
    void_round = ledger_store.Ledger.void_round

    def opening_only(self, round_id, now, *, rule, cause, stakes=None):
        return void_round(self, round_id, now, rule=rule, cause=cause)

    monkeypatch.setattr(ledger_store.Ledger, "void_round", opening_only)
    found = first_violation("trilux-gr", SEEDS, 30)
    assert found is not None
    assert found.violations[0]["invariant"] == "void", found.violations


def test_a_settlement_applied_twice_after_a_crash(monkeypatch):
    """A power-up that replays the last settlement it finds in the ledger."""
    open_books = sim_world.open_books

    def replaying(*args, **kwargs):
        books = open_books(*args, **kwargs)
        ledger = books.ledger
        row = ledger.db.execute(
            "SELECT data FROM journal WHERE kind = 'round.settled' ORDER BY seq DESC LIMIT 1"
        ).fetchone()
        if row is not None:
            import json

            with ledger.transaction():
                ledger.journal.write("round.settled", json.loads(row[0]), args[2])
        return books

    monkeypatch.setattr(sim_world, "open_books", replaying)
    found = first_violation("uth-gr", SEEDS, 30, faults=0.0, crash_rate=0.3)
    assert found is not None
    assert found.violations[0]["invariant"] in ("once", "journal"), found.violations


def test_a_packet_accepted_after_a_void(monkeypatch):
    """The table takes a late packet of a voided round as one of the round in play."""
    on_packet = TableMachine._on_packet

    def careless(self, event, now):
        return on_packet(self, replace(event, round_id=None), now)

    monkeypatch.setattr(TableMachine, "_on_packet", careless)
    found = first_violation("uth-gr", SEEDS, 40, faults=0.6)
    assert found is not None
    assert found.violations[0]["invariant"] in ("cards", "verdict"), found.violations


def test_an_event_delivered_twice(monkeypatch):
    """The shuffler glue hands the table each packet twice."""
    deal_events = sim_shuffler.deal_events

    def twice(*args):
        events = deal_events(*args)
        return events + [e for e in events if isinstance(e, PacketDelivered)]

    monkeypatch.setattr(sim_shuffler, "deal_events", twice)
    found = first_violation("uth-gr", SEEDS, 20, faults=0.0)
    assert found is not None
    assert found.violations[0]["invariant"] == "verdict", found.violations


def test_a_settlement_that_is_not_the_engines_of_the_recorded_round(monkeypatch):
    """The table settles its first seat as if its first stake were twice what the record says.
    (Before the tally checked the record when the table archives it, after the ledger's
    answer, the settlement and card checks never ran: the archive came after the check.)"""
    engine = table_machine.settle

    def doubled(profile, record, **kwargs):
        record = copy.deepcopy(record)
        stakes = record["seats"][0]["stakes"]
        for name in list(stakes)[:1]:
            stakes[name] *= 2
        return engine(profile, record, **kwargs)

    monkeypatch.setattr(table_machine, "settle", doubled)
    found = first_violation("trilux-gr", SEEDS, 5, faults=0.0)
    assert found is not None
    assert found.violations[0]["invariant"] == "settlement", found.violations


@pytest.mark.parametrize("profile", ["uth-it", "uth-gr"])
def test_a_table_that_settles_on_the_exposed_cards(monkeypatch, profile):
    """MD-X3 (uth-it), MD-X1 and MD-X2 (uth-gr): the replacement packet is counted, but the
    round is recorded and settled on the cards that were exposed and went back into the
    shuffler. Every card is one the shuffler dealt to the round: only their positions give it
    away."""

    def exposed_cards(self):
        cards: dict[str, list[int | None]] = {}
        for p in self.validator.delivered[: self._planned]:
            cards.setdefault(p.destination, []).extend(p.cards)
        return cards

    monkeypatch.setattr(HandFormingDeal, "_cards", exposed_cards)
    found = first_violation(profile, SEEDS, 20, faults=0.6)
    assert found is not None
    assert found.violations[0]["invariant"] == "cards", found.violations
    assert "exposed" in found.violations[0]["detail"], found.violations


@pytest.mark.parametrize("acted", [True, False], ids=["taken-before", "refused-after"])
def test_a_table_that_misjudges_the_first_player_action(monkeypatch, acted):
    """MD-X1 on uth-gr: a table that always sees a player action replaces the dealer's cards
    exposed before any decision (where the dealer must declare MD-S3 for two cards or call
    the floor for one); one that never sees it refuses them after the decision was entered."""
    monkeypatch.setattr(Round, "player_acted", property(lambda self: acted))
    found = first_violation("uth-gr", SEEDS, 20, faults=0.6)
    assert found is not None
    assert found.violations[0]["invariant"] == "exposure", found.violations
    assert ("replaced" if acted else "refused") in found.violations[0]["detail"]


@pytest.mark.parametrize("profile", ["uth-gr", "trilux-gr"])
def test_the_unmutated_code_passes_the_same_sweeps(profile):
    assert first_violation(profile, range(1, 3), 20, faults=0.6, crash_rate=0.3) is None
