"""A robot dealer and robot players at a simulated hold'em table with a hand-forming shuffler:
one round at a time through the rig, the way people play it (used by the soak and by the
autoplay of ``make demo``).

One round (:meth:`Dealer.play`): bring the table to OPEN (a CONFIRM, a jackpot
acknowledgement, a shuffler reset after a jam, as a dealer or technician would), set the
shuffler's faults for the round, put the progressive stakes on the sensors and wait until the
table senses them, optionally enter the players' main stakes through the control socket (a
dealer tablet), press LOCK, lift the stakes (they stay in the round, PRG-2), wait for the
verdict (VERIFIED or VOID), read what the shuffler really delivered from the emulator,
optionally enter each player's decision (a simple strategy), press CONFIRM for the showdown
and again to close the round.

A :class:`RoundPlan` may ask for a ``kill -9`` of the daemon at a point of the round; the
dealer then restarts it and learns from the ledger (read-only) what became of the round:
never opened, voided at start-up (MD-S2) or settled just before the kill. Everything else the
dealer learns from the table itself: the state, the verdict, the lamps.
"""

from __future__ import annotations

import contextlib
import random
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from controller.books.ledger.verify import verify_ledger
from controller.engine.cards import Card
from controller.engine.poker import Category, evaluate
from controller.rig.errors import RigFailure
from controller.rig.target import EDGE_MARGIN, TableUnderTest
from controller.table.control.wire import ControlError

DONE = ("open", "closed")
KILL_POINTS = ("lock", "dealing", "verified", "confirm", "settled")
LOCK_ATTEMPTS = 3  # LOCKs a round may take when the table closes on a lost link (Dealer.lock)


@dataclass(frozen=True)
class Hands:
    """The cards of a hold'em round as the shuffler delivered them (UTH-11 order)."""

    community: tuple[int, ...]
    seats: dict[int, tuple[int, ...]]
    dealer: tuple[int, ...]

    @classmethod
    def from_delivery(cls, delivered: list[int | None], seats: tuple[int, ...]) -> Hands | None:
        """Community 5, 2 per seat in ascending order, the dealer's 2; ``None`` when the
        delivery is not a whole recognised deal of that plan."""
        if len(delivered) != 7 + 2 * len(seats) or None in delivered:
            return None
        cards = [int(c) for c in delivered if c is not None]
        holes = {s: tuple(cards[5 + 2 * i : 7 + 2 * i]) for i, s in enumerate(sorted(seats))}
        return cls(tuple(cards[:5]), holes, tuple(cards[-2:]))


def royal_order(seats: tuple[int, ...], rng: random.Random, *, community: bool) -> list[int]:
    """A deck order (top first) dealing a royal flush: to the first seat with two hole cards
    (the pool, PRG-3), or to the board (a community royal)."""
    suit = rng.randrange(4)
    royal = [rank * 4 + suit for rank in (12, 11, 10, 9, 8)]  # A K Q J 10
    rest = [c for c in range(52) if c not in royal]
    rng.shuffle(rest)
    if community:
        board, first = royal, rest[:2]
        rest = rest[2:]
    else:
        board, first = royal[2:] + rest[:2], royal[:2]
        rest = rest[2:]
        rng.shuffle(board)
    others = rest[: 2 * (len(seats) - 1) + 2]
    return board + first + others


def simple_decision(hole: tuple[int, ...], community: tuple[int, ...]) -> str:
    """Raise 4x with a pocket pair or an ace, 2x with a pair on the flop, else 1x with a pair
    at the river, else fold (UTH-4)."""
    hand = [Card(c) for c in hole]
    board = [Card(c) for c in community]
    if hand[0].rank == hand[1].rank or max(c.rank for c in hand) == 12:
        return "4x"
    if evaluate(hand + board[:3]).category >= Category.PAIR:
        return "2x"
    return "1x" if evaluate(hand + board).category >= Category.PAIR else "fold"


@dataclass(frozen=True)
class Fault:
    """A shuffler fault for one round: ``faults`` for the emulator before LOCK, or an
    ``after_lock`` action (``disconnect``, ``misfeed``); ``expect`` is the verdict it must
    give (an MD rule, ``"verified"``), ``None`` when the timing decides."""

    kind: str
    detail: str = ""
    faults: dict[str, Any] = field(default_factory=dict)
    after_lock: str | None = None
    expect: str | None = None

    def __str__(self) -> str:
        return f"{self.kind} ({self.detail})" if self.detail else self.kind


def random_fault(rng: random.Random, seats: int) -> Fault:
    """One of the emulator's faults, at a random packet of a deal of ``seats`` seats."""
    k = rng.randint(1, seats + 2)
    at = f"packet {k}"
    choice = rng.randrange(8)
    if choice == 0:
        return Fault("jam", at, {"machine": {"jam_at_packet": k}}, expect="MD-S2")
    if choice == 1:
        return Fault("wrong count", at, {"machine": {"wrong_count_at_packet": k}}, expect="MD-S1")
    if choice in (2, 3):
        n = 4 - choice  # 2 cards face up: MD-S3; 1: journaled, not a misdeal
        exposed = {"machine": {"exposed_at_packet": k, "exposed_cards": n}}
        return Fault(f"{n} face up", at, exposed, expect="MD-S3" if n == 2 else "verified")
    if choice == 4:
        way, kind = rng.choice(("rx", "tx")), rng.choice(("drop", "corrupt", "duplicate"))
        n = rng.randint(1, 3)
        return Fault(f"{kind} frames", f"{n} {way}", {way: {kind: n}}, expect="verified")
    if choice == 5:
        return Fault(
            "lossy line", "20% of replies lost", {"tx": {"drop_rate": 0.2}}, expect="verified"
        )
    if choice == 6:
        return Fault("cable pulled", "after LOCK", after_lock="disconnect")
    return Fault("misfeed", "after LOCK", after_lock="misfeed")


@dataclass
class RoundPlan:
    seats: tuple[int, ...]  # progressive stakes on these sensors
    fault: Fault | None = None
    arrange: list[int] | None = None  # deck order, top first (the emulator's arrange)
    kill_at: str | None = None  # one of KILL_POINTS
    kill_delay: float = 0.0  # seconds after that point
    main_bets: dict[str, int] | None = None  # each seat's main stakes, entered on the tablet


def plan_round(
    rng: random.Random,
    seats: tuple[int, ...] | list[int],
    faults: float,
    kill_rate: float,
    arrange: Callable[[random.Random, tuple[int, ...]], list[int] | None] | None = None,
) -> RoundPlan:
    """A random round of the soak: 1 to 4 of ``seats`` staked; a shuffler fault with
    probability ``faults``, else ``arrange(rng, seats)``'s deck order (None: a shuffled
    deck); a ``kill -9`` at a random point with probability ``kill_rate``."""
    chosen = tuple(sorted(rng.sample(list(seats), rng.randint(1, min(4, len(seats))))))
    plan = RoundPlan(chosen)
    if rng.random() < faults:
        plan.fault = random_fault(rng, len(chosen))
    elif arrange is not None:
        plan.arrange = arrange(rng, chosen)
    if rng.random() < kill_rate:
        plan.kill_at = rng.choice(KILL_POINTS)
        plan.kill_delay = rng.uniform(0.0, 0.02)
    return plan


@dataclass
class RoundSeen:
    plan: RoundPlan
    round_id: str | None = None
    outcome: str = "not opened"  # not opened, voided, settled
    rule: str | None = None  # the MD rule of a void
    hands: Hands | None = None
    killed: bool = False
    jackpot: bool = False
    problems: list[str] = field(default_factory=list)


class Dealer:
    """``pause(moment)`` is called at ``staked``, ``verified`` and ``settled`` (a demo lets
    people watch; the soak does not wait). ``tablet``: LOCK and CONFIRM come from the dealer's
    tablet (the control socket) instead of the console buttons. ``waits_out``: conditions
    that may keep the table closed for longer than ``timeout`` (the linked soak's ``witness``
    while its store is down): :meth:`ready` returns the closed status instead of failing."""

    def __init__(
        self,
        table: TableUnderTest,
        *,
        timeout: float = 20.0,
        pause: Callable[[str], None] | None = None,
        tablet: bool = False,
        waits_out: frozenset[str] = frozenset(),
    ) -> None:
        self.table = table
        self.waits_out = waits_out
        self.timeout = timeout
        self.pause = pause or (lambda moment: None)
        self.tablet = tablet
        self.placed: set[int] = set()  # seats whose sensor the rig holds active
        self.entered: set[int] = set()  # seats with tablet stakes entered that no LOCK took
        self.kills = 0

    # --- hands on the table --------------------------------------------------------------

    def status(self) -> dict[str, Any]:
        return self.table.status()

    def wait(self, check: Callable[[dict[str, Any]], bool], what: str) -> dict[str, Any]:
        last: dict[str, Any] = {}

        def reached() -> dict[str, Any] | None:
            last.update(self.status())
            return last if check(last) else None

        try:
            return self.table.wait_until(reached, what, timeout=self.timeout)
        except RigFailure as exc:
            seats = {s: i for s, i in last.get("seats", {}).items() if i["stake"] or i["excluded"]}
            raise RigFailure(
                f"{exc}\nthe table was {last.get('state')} {last.get('conditions')}"
                f" {last.get('verdict')} seats {seats}"
            ) from None

    def press(self, button: str, reacted: Callable[[dict[str, Any]], bool]) -> dict[str, Any]:
        """Hold a console button until the table reacts, then let it go for long enough that
        the release counts too (both edges are debounced: a finger cannot press twice
        within the debounce time either)."""
        what = f"the table to react to {button.upper()}"
        if self.tablet:
            try:
                self.table.call(f"round.{button}")
            except ControlError as exc:  # the table did not take it: as it is, as after a pin
                if exc.code != "refused":
                    raise
                return self.status()
            return self.wait(reacted, what)
        io = self._io()
        io.press(button)
        try:
            return self.wait(reacted, what)
        finally:
            io.release(button)
            time.sleep(2 * io.config.button_debounce + EDGE_MARGIN)

    def place(self, seats: tuple[int, ...] | set[int]) -> None:
        """Put stakes on the seats' sensors and wait until the table senses them. RigFailure
        at once for a seat excluded for a sensor fault: its sensor takes no stake until a
        technician clears it, so the wait could only time out."""
        io = self._io()
        for seat in seats:
            io.place_stake(seat)
            self.placed.add(seat)

        def sensed(status: dict[str, Any]) -> bool:
            excluded = {
                seat: status["seats"][str(seat)]["excluded"]
                for seat in seats
                if status["seats"][str(seat)]["excluded"]
            }
            if excluded:
                raise RigFailure(
                    f"no stake can be sensed on excluded seat(s) {sorted(excluded)}:"
                    f" {'; '.join(sorted(set(excluded.values())))}"
                )
            return all(status["seats"][str(seat)]["stake"] for seat in seats)

        self.wait(sensed, f"stakes sensed on seats {sorted(seats)}")

    def enter(self, seat: int, stakes: dict[str, int]) -> None:
        """The seat's stakes on the tablet (``round stake``), taken back by :meth:`lift` if
        no LOCK takes them (a round cut short before it)."""
        self.table.call("round.stake", seat=seat, stakes=stakes)
        self.entered.add(seat)

    def lift(self) -> None:
        """Every stake the rig left on the table: off the sensors, and the tablet's withdrawn
        (``round withdraw``) unless a round is in play: then a LOCK took them, they are the
        round's."""
        if self.placed:
            io = self._io()
            for seat in sorted(self.placed):
                io.lift_stake(seat)
            self.placed.clear()
        if self.entered and self.status()["round"] is None:
            for seat in sorted(self.entered):
                with contextlib.suppress(ControlError):  # e.g. none left for the seat
                    self.table.call("round.withdraw", seat=seat)
        self.entered.clear()

    def _io(self) -> Any:
        if self.table.io is None:
            raise RigFailure('this table has no rig pins ([gpio] pin_factory = "rig")')
        return self.table.io

    # --- between rounds ------------------------------------------------------------------

    def ready(self) -> dict[str, Any]:
        """Bring the table to OPEN, with every stake off its sensor."""
        deadline = time.monotonic() + self.timeout
        if self.placed or self.entered:
            self.lift()
        while True:
            status = self.status()
            state, conditions = status["state"], status["conditions"]
            sensed = [seat for seat, info in status["seats"].items() if info["stake"]]
            if state == "open" and not sensed:
                return status
            if state == "closed" and self.waits_out & set(conditions):
                return status
            if time.monotonic() > deadline:
                held = f", stakes sensed on seats {sorted(sensed, key=int)}" if sensed else ""
                raise RigFailure(f"the table did not open: {state} {conditions}{held}")
            if state == "jackpot":
                self.table.call("jackpot.ack", privileged=True, technician="rig")
                self.wait(lambda s: s["state"] != "jackpot", "the jackpot to be acknowledged")
            elif state in ("settled", "void", "verified") and not sensed:
                self.press("confirm", lambda s, was=state: s["state"] != was)
            elif state == "closed" and ({"shuffler", "deck"} & set(conditions)):
                self.table.call("shuffler.reset", privileged=True, technician="rig")
                self.wait(
                    lambda s: not ({"shuffler", "deck"} & set(s["conditions"])),
                    "the shuffler to be reset",
                )
            else:
                time.sleep(0.005)

    def lock(self, stake: Callable[[], None]) -> dict[str, Any]:
        """``stake()``, then LOCK, as a dealer does: when the table closed on a lost shuffler
        link between opening and LOCK (nothing was taken, no round began: a cable pulled in the
        round before is noticed late on a loaded machine), wait for it to open and do both
        again, up to LOCK_ATTEMPTS times. The status after the last LOCK."""
        for _ in range(LOCK_ATTEMPTS - 1):
            stake()
            status = self.press("lock", lambda s: s["state"] != "open")
            if not (status["state"] == "closed" and "link" in status["conditions"]):
                break
            self.ready()
        else:
            stake()
            status = self.press("lock", lambda s: s["state"] != "open")
        if status["round"] is not None:
            self.entered.clear()  # the round took them
        return status

    # --- one round -----------------------------------------------------------------------

    def play(self, plan: RoundPlan) -> RoundSeen:
        seen = RoundSeen(plan)
        self.ready()
        table = self.table
        fault = plan.fault
        if fault is not None and fault.faults:
            table.emulate("faults", **fault.faults)
        if plan.arrange:
            table.emulate("arrange", cards=plan.arrange)

        def stake() -> None:
            self.place(plan.seats)
            if plan.main_bets:
                for seat in plan.seats:
                    self.enter(seat, plan.main_bets)
            self.pause("staked")

        status = self.lock(stake)
        seen.round_id = status["round"]
        if status["state"] == "closed" or seen.round_id is None:
            seen.problems.append(
                f"LOCK did not start a round: {status['state']} {status['conditions']}"
            )
            return self._finish(seen)
        if fault is not None and fault.after_lock == "disconnect":
            table.emulate("disconnect", seconds=0.2)
        elif fault is not None and fault.after_lock == "misfeed":
            table.emulate("fault", code="MISFEED", detail="card misfed")
        if self._kill_point(plan, "lock", seen):
            return seen
        self.lift()
        if self._kill_point(plan, "dealing", seen):
            return seen
        status = self.wait(
            lambda s: s["state"] in ("verified", "void", "closed", "open"), "the deal's verdict"
        )
        if status["state"] != "verified":
            return self._voided(seen, status)
        seen.hands = Hands.from_delivery(table.emulate("state")["delivered"], plan.seats)
        if seen.hands is None:
            seen.problems.append("the emulator's delivery is not the round's deal")
        if plan.main_bets and seen.hands is not None:
            for seat, hole in seen.hands.seats.items():
                decision = simple_decision(hole, seen.hands.community)
                table.call("round.decide", seat=seat, action=decision)
        self.pause("verified")
        if self._kill_point(plan, "verified", seen):
            return seen
        self.wait(
            lambda s: not any(s["seats"][str(x)]["stake"] for x in plan.seats),
            "the stakes to be lifted",
        )
        self.press("confirm", lambda s: s["state"] != "verified")
        if self._kill_point(plan, "confirm", seen):
            return seen
        status = self.wait(lambda s: s["state"] in ("settled", "jackpot"), "the settlement")
        seen.outcome, seen.jackpot = "settled", status["state"] == "jackpot"
        self.pause("settled")
        if self._kill_point(plan, "settled", seen):
            return seen
        return self._finish(seen)

    def _voided(self, seen: RoundSeen, status: dict[str, Any]) -> RoundSeen:
        verdict = status.get("verdict") or {}
        if status["state"] == "void":
            seen.outcome, seen.rule = "voided", verdict.get("rule")
            self.pause("settled")
        else:  # closed before the deal: a ledger failure took no stakes
            seen.problems.append(
                f"no verdict: the table went {status['state']} {status['conditions']}"
            )
        return self._finish(seen)

    def _finish(self, seen: RoundSeen) -> RoundSeen:
        self.ready()
        if seen.plan.fault is not None:
            self.table.emulate("clear")
        return seen

    def _kill_point(self, plan: RoundPlan, point: str, seen: RoundSeen) -> bool:
        """At the plan's kill point: ``kill -9``, restart, and learn the round's fate."""
        if plan.kill_at != point:
            return False
        time.sleep(plan.kill_delay)
        self.table.kill()
        self.kills += 1
        self.table.start()
        seen.killed = True
        with self.table.ledger() as ledger:
            # after every restart the books must already be whole (issue 7): every invariant
            # of the ledger and the journal's chain, replayed
            seen.problems += [f"after the restart: {p}" for p in verify_ledger(ledger).problems[:5]]
            record = ledger.round(seen.round_id) if seen.round_id is not None else None
        if seen.round_id is not None:
            if record is None:
                seen.outcome = "not opened"
            elif record.state == "open":
                seen.problems.append(f"{seen.round_id} still open after the restart (MD-S2)")
            else:
                seen.outcome, seen.rule = record.state, record.rule
        self.ready()
        return True
