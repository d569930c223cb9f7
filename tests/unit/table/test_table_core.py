"""The pure table core driven directly, on a fake clock, with the real GPIO sensor core and no
asyncio: a full round, a misdeal void, a ledger failure and its probe, the technician key
rule and a failing lamp. The ledger is scripted here (the shell's part): every LedgerWrite
gets the answer the test chooses."""

import json
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from controller.engine.cards import parse_cards
from controller.engine.deal.validator import Packet
from controller.table.core import LEDGER_PROBE_SECONDS, TableLogic
from controller.table.events import (
    ArchiveRound,
    CheckDeck,
    Condition,
    ConditionChanged,
    DeckChainBroken,
    JournalNote,
    LedgerAction,
    LedgerWrite,
    LedgerWritten,
    OpenRound,
    PacketDelivered,
    ReportStatus,
    RequestPacket,
    SettleRound,
    ShowSign,
    Tick,
    ToShuffler,
    VoidRound,
)
from controller.table.machine import (
    TRANSITIONS,
    EventRefused,
    TableState,
    TransitionError,
)
from controller.table.outputs import lamp_patterns
from controller.table.tableconfig import parse_table_config
from display.scenes import Mode
from drivers.gpio.core import SeatError, TableCore
from drivers.gpio.events import LampFault, SeatState

ROOT = Path(__file__).resolve().parents[3]
SIM = parse_table_config(tomllib.loads((ROOT / "config" / "sim.toml").read_text()), "sim.toml")
SETTLE = SIM.io.gpio.sensor_debounce + SIM.io.gpio.button_debounce + 0.01

# UTH-11 shuffler order for seats 1 and 3: community 5, seat 1, seat 3, dealer; no jackpot
PLAIN_DEAL = [
    ("community", "2c 7d 9h Js Qs"),
    ("seat:1", "Kd Tc"),
    ("seat:3", "4h 4s"),
    ("dealer", "Jd 3c"),
]


class Table:
    """The core, its GPIO sensor core on the same fake clock, and what came out."""

    def __init__(self, sensors_class=TableCore):
        self.now = 100.0
        self.sensors = sensors_class(SIM.io.gpio, self.now)
        self.logic = TableLogic(SIM, sensors=self.sensors)
        self.outputs = []
        self.pending = []  # ledger writes not yet answered

    @property
    def state(self):
        return self.logic.machine.state

    def send(self, event, dt=0.01):
        self.now += dt
        out = self.logic.handle(event, self.now)
        self.outputs += out
        self.pending += [o for o in out if isinstance(o, LedgerWrite)]
        return out

    def answer(self, ok=True, error="", amounts=()):
        """Answer the oldest ledger write as the shell would."""
        write = self.pending.pop(0)
        return self.send(LedgerWritten(write.money, ok, error, amounts=amounts, probe=write.probe))

    def commit_all(self):
        while self.pending:
            self.answer(amounts=(("main", 500_000),))

    def edge(self, line, active):
        """A clean edge on a pin, then the sensor core's events through the table core."""
        self.now += 0.001
        self.sensors.edge(line, active, self.now)
        self.now += SETTLE
        for event in self.sensors.poll(self.now):
            self.send(event, dt=0)

    def press(self, button):
        self.edge(button, True)
        self.edge(button, False)

    def deliver(self, packets):
        for dest, cards in packets:
            cs = tuple(parse_cards(cards, unique=False))
            self.send(PacketDelivered(Packet(dest, cs, (False,) * len(cs))))
            self.commit_all()

    def journal(self, kind):
        return [
            item.data
            for o in self.outputs
            if isinstance(o, LedgerWrite)
            for item in o.items
            if getattr(item, "kind", None) == kind
        ]

    def of(self, kind):
        return [o for o in self.outputs if isinstance(o, kind)]

    def shuffler(self):
        return [o.command for o in self.of(ToShuffler)]

    def open(self):
        self.send(ConditionChanged(Condition.STARTUP, False))
        self.commit_all()
        assert self.state is TableState.OPEN


def test_full_round_from_the_pins_to_the_ledger_and_back():
    t = Table()
    t.open()
    t.edge("seat1", True)
    t.edge("seat3", True)
    assert t.sensors.seat_state(1) is SeatState.STAKE_PLACED
    t.press("lock")
    assert t.state is TableState.LOCKED
    # one transaction: the transition and the money event (PRG-1); the seats locked at once
    write = t.pending[-1]
    assert [type(i).__name__ for i in write.items] == ["AppendJournal", "OpenRound"]
    assert write.items[-1] == OpenRound("SIM-1-000001", "progressive", {1: 100, 3: 100})
    assert t.sensors.seat_state(1) is SeatState.LOCKED
    assert t.shuffler() == []  # nothing is dealt before the ledger took the stakes
    t.commit_all()
    assert t.state is TableState.DEALING
    assert t.of(ToShuffler)[-1] == ToShuffler(RequestPacket("community", 5), "SIM-1-000001")
    t.deliver(PLAIN_DEAL)
    assert t.state is TableState.VERIFIED
    assert t.sensors.lamp_levels(t.now)["green"]  # UTH-11: the dealer may go on
    t.press("confirm")
    assert t.state is TableState.SHOWDOWN
    settle = [i for w in t.pending for i in w.items if isinstance(i, SettleRound)]
    assert settle and settle[0].round_id == "SIM-1-000001"
    t.commit_all()
    assert t.state is TableState.SETTLED
    archived = t.of(ArchiveRound)[-1]
    assert archived.round_id == "SIM-1-000001" and len(archived.shuffle_order) == 11
    assert [s.text for s in t.of(ReportStatus)][-1] == "settled SIM-1-000001"
    # the stakes are lifted; the display time runs out at the core's deadline
    t.edge("seat1", False)
    t.edge("seat3", False)
    deadline = t.logic.next_deadline()
    assert deadline == pytest.approx(t.logic.machine.round.settled_at + SIM.settled_display)
    t.now = deadline
    t.send(Tick(), dt=0)
    t.commit_all()
    assert t.state is TableState.OPEN
    assert t.sensors.seat_state(1) is SeatState.AWAITING  # the round boundary reached the seats
    assert t.of(ShowSign)[-1].state.mode is Mode.OPEN


def test_misdeal_voids_the_round_and_keeps_the_stakes_for_the_redeal():
    t = Table()
    t.open()
    t.edge("seat1", True)
    t.press("lock")
    t.commit_all()
    t.deliver([("community", "2c 7d 9h Js Qs"), ("seat:1", "Kd")])  # one card short: MD-S1
    assert t.state is TableState.VOID
    void = [i for w in t.of(LedgerWrite) for i in w.items if isinstance(i, VoidRound)]
    assert void[-1].rule == "MD-S1"
    assert t.of(DeckChainBroken)  # the shuffle audit starts a new chain
    assert lamp_patterns(t.logic.machine)["red"] == "fast"
    t.press("confirm")
    t.commit_all()
    assert CheckDeck() in t.shuffler()  # the dealer confirmed a new deck: count it
    assert t.state is TableState.CLOSED  # until the count is good
    t.send(ConditionChanged(Condition.DECK, False))
    t.commit_all()
    assert t.state is TableState.OPEN
    # the returned stake stayed on the sensor: it plays the next round (MD, void boundary)
    assert t.sensors.seat_state(1) is SeatState.STAKE_PLACED
    assert 1 in t.logic.machine.seats.with_stake()


def test_a_failed_open_takes_nothing_closes_the_table_and_a_probe_reopens_it():
    t = Table()
    t.open()
    t.edge("seat2", True)
    t.commit_all()
    t.press("lock")
    assert len(t.pending) == 1 and t.pending[0].money == (("SIM-1-000001", LedgerAction.OPEN),)
    t.answer(ok=False, error="database or disk is full")
    assert t.state is TableState.CLOSED and t.logic.machine.round is None
    assert t.shuffler() == []
    assert t.logic.machine.conditions[Condition.LEDGER] == "database or disk is full"
    t.pending.clear()  # the failure's own journal entries: this disk takes none
    due = t.logic.next_deadline()
    assert due == pytest.approx(t.now + LEDGER_PROBE_SECONDS, abs=0.1)
    t.now = due - 0.5
    assert not [o for o in t.send(Tick(), dt=0) if isinstance(o, LedgerWrite)]
    t.now = due
    probes = [o for o in t.send(Tick(), dt=0) if isinstance(o, LedgerWrite) and o.probe]
    assert len(probes) == 1
    t.pending = [w for w in t.pending if w.probe]
    t.answer(ok=False, error="still full")  # the disk is still full: the table stays closed
    assert t.state is TableState.CLOSED
    t.now = t.logic.next_deadline()
    t.send(Tick(), dt=0)
    t.pending = [w for w in t.pending if w.probe]
    t.answer(ok=True)
    t.commit_all()
    assert t.state is TableState.OPEN
    assert Condition.LEDGER not in t.logic.machine.conditions


def test_a_journal_that_cannot_be_written_closes_the_table():
    t = Table()
    t.open()
    t.send(JournalNote("access-refused", {"action": "jackpot.ack"}))
    t.answer(ok=False, error="disk I/O error")
    assert t.state is TableState.CLOSED
    assert "journal not writable" in t.logic.machine.conditions[Condition.LEDGER]


def test_confirm_with_the_technician_key_clears_excluded_seats():
    t = Table()
    t.open()
    for _ in range(SIM.io.gpio.chatter_edges // 2 + 1):  # a chattering sensor
        t.sensors.edge("seat4", True, t.now)
        t.sensors.edge("seat4", False, t.now + 0.001)
        t.now += 0.002
    t.now += SETTLE
    for event in t.sensors.poll(t.now):
        t.send(event, dt=0)
    assert t.sensors.seat_state(4) is SeatState.EXCLUDED
    assert 4 in t.logic.machine.seats.excluded()
    assert "CHATTER" in t.logic.machine.view()["seats"][4]["excluded"]
    t.press("confirm")  # without the key: the dealer's CONFIRM, nothing to confirm
    assert t.sensors.seat_state(4) is SeatState.EXCLUDED
    assert t.journal("confirm-ignored")
    t.edge("key", True)
    assert t.logic.machine.key_on and t.journal("technician-key") == [{"on": True}]
    t.press("confirm")
    assert t.journal("seats-cleared") == [{"seats": [4], "by": "technician key"}]
    assert t.sensors.seat_state(4) is SeatState.AWAITING
    assert t.logic.machine.seats.excluded() == {}
    assert t.journal("seat-health")[-1]["excluded"] is False  # the sensor core's SeatCleared
    assert t.state is TableState.OPEN


class GreenLampBroken(TableCore):
    """A sensor core whose green lamp cannot be driven (until ``repaired``)."""

    repaired = False

    def set_status_lamp(self, name, pattern, now):
        if name == "green" and not self.repaired:
            raise SeatError("green lamp: output pin 19 does not answer")
        super().set_status_lamp(name, pattern, now)


def test_a_failing_lamp_raises_the_lamps_condition_and_the_table_plays_on():
    t = Table(GreenLampBroken)
    t.open()
    t.edge("seat1", True)
    t.press("lock")
    t.commit_all()
    t.deliver(PLAIN_DEAL[:1] + PLAIN_DEAL[1:2] + [("dealer", "Jd 3c")])
    assert t.state is TableState.VERIFIED  # the green lamp should be on now: it fails
    assert "green" in t.logic.machine.conditions[Condition.LAMPS]
    assert "pin 19" in t.logic.view()["conditions"][Condition.LAMPS]  # the status shows it
    blocking = [d for d in t.journal("condition") if d["name"] == Condition.LAMPS]
    assert blocking and blocking[0]["blocking"] is True
    t.press("confirm")
    t.commit_all()
    assert t.state is TableState.SETTLED  # a lamp does not stop the round
    t.sensors.repaired = True
    t.press("confirm")  # the next update of the lamps works: the condition clears
    t.commit_all()
    assert Condition.LAMPS not in t.logic.machine.conditions
    assert t.state is TableState.OPEN


def test_every_state_has_its_transitions_and_an_illegal_move_is_a_named_error():
    assert set(TRANSITIONS) == set(TableState)
    t = Table()
    with pytest.raises(TransitionError, match="closed -> settled"):
        t.logic.machine._move(TableState.SETTLED, "a bug")
    t.open()
    out = t.logic.machine.handle(ConditionChanged(Condition.LAMPS, True, "x"), t.now)
    assert t.state is TableState.OPEN and out  # an advisory condition closes nothing
    assert issubclass(EventRefused, Exception)


def test_ledger_answers_for_an_older_round_do_not_move_the_table():
    t = Table()
    t.open()
    t.send(LedgerWritten((("SIM-1-000099", LedgerAction.OPEN),), True))
    assert t.state is TableState.OPEN
    assert t.journal("ledger-result-ignored") == [{"round": "SIM-1-000099"}]


def test_the_core_and_the_machine_load_no_io_module():
    code = (
        "import sys, json, controller.table.core, controller.table.machine;"
        "print(json.dumps(sorted(m for m in sys.modules if m.split('.')[0] in"
        " ('sqlite3', 'asyncio', 'serial', 'usb', 'gpiozero', 'luma', 'psycopg', 'socket',"
        " 'threading', 'subprocess', 'concurrent'))))"
    )
    loaded = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=ROOT
    )
    assert json.loads(loaded.stdout) == []


def test_a_lamp_pin_the_shell_cannot_write_is_a_condition_until_it_works_again():
    t = Table()
    t.open()
    t.send(LampFault(t.now, "red", "OSError: [Errno 5] Input/output error"))
    t.commit_all()
    assert "pin red: OSError" in t.logic.machine.conditions[Condition.LAMPS]
    assert t.state is TableState.OPEN
    t.send(LampFault(t.now, "red", ""))
    t.commit_all()
    assert Condition.LAMPS not in t.logic.machine.conditions
