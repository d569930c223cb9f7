"""``croupier rig soak --profile trilux-gr``: Trilux blackjack tables in shoe mode with shuffler
faults and ``kill -9``; at the end every round the rig played is in the table's ledger with
the payments the rig computed, to the cent.

Theory of operation. The shuffler works as a 6-deck shoe and reports each card the dealer
draws (BJ-2); the stakes and the players' decisions come from the dealer's tablet (the
control socket). The robot players put a main bet and now and then a Trilux bet, decline
insurance, hit below 12 and stand from 12 (a hand stands by itself on 21 or a bust). The rig
draws each card itself (the emulator's ``draw``), so it knows where every card went; the
dealer draws by the rule of the profile (BJ-4 with ``dealer_draws = "when-needed"``: only
while a hand other than a bust or a blackjack waits, or the second card when only
blackjacks are left and the up card can make a dealer blackjack), and the round must then
settle by itself. A round may get a fault: lost, corrupted or duplicated frames and a lossy
line (the round must still settle), a card drawn when none is due (MD-S1), a misfeed or the
cable pulled once the round has started (a void, MD-S2, unless the timing lets the round
finish first), or a ``kill -9`` at a random point (the round is voided at restart, MD-S2,
unless it was settled just before).

The rig's books (:class:`ShoeTally`, written without the controller's engine or ledger
code): every settled round's payments per seat and wager (main: the stake back with 1:1, 3:2
for a blackjack, the stake on a push; Trilux on the first two cards and the dealer's first
card, TRX-2, the stake back with the odds), every void returning all; at the end each round
against the ledger's record, and the totals (stakes taken, paid back) against the sums of
the ledger's rounds; ``verify_ledger`` and the journal's chain must find no problem.
"""

from __future__ import annotations

import contextlib
import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from functools import partial
from typing import Any

from controller.books.ledger.verify import verify_ledger
from controller.engine.cards import card_name
from controller.engine.paytable import Odds, PayTable
from controller.rig.dealer import KILL_POINTS, Dealer, Fault, RoundPlan, RoundSeen
from controller.rig.errors import RigFailure
from controller.rig.soak import (
    SOAK_OVERRIDES,
    RoundCounter,
    SoakReport,
    run_tables,
    split_rounds,
)
from controller.rig.table import REPO, SimTable, merged

SHOE_CONFIG = REPO / "tests" / "hil" / "tables" / "sim-trilux-gr.toml"
SEATS = (1, 2, 3, 4, 5, 6)  # the seats of the sim table
MAINS = (1000, 2000, 5000)  # within BJ-1's table limits, even (3:2 exact)
TRILUX = (0, 0, 100, 200, 500)  # 0: no Trilux bet (TRX-1)
STAND_FROM = 12
TEN, ACE = 8, 12  # ranks 0..12 = 2..A (codes rank*4 + suit); ranks 8..11 count ten


def value(card: int) -> int:
    rank = (card % 52) // 4
    return 11 if rank == ACE else min(rank + 2, 10)


def total(cards: Sequence[int]) -> int:
    """The best total not over 21 (an ace counts 1 when 11 would bust, BJ-3)."""
    points = sum(value(c) for c in cards)
    aces = sum(1 for c in cards if value(c) == 11)
    while points > 21 and aces:
        points, aces = points - 10, aces - 1
    return points


def is_blackjack(cards: Sequence[int]) -> bool:
    return len(cards) == 2 and total(cards) == 21


def trilux_line(cards: Sequence[int]) -> str | None:
    """The Trilux line of three cards (TRX-2; the ace high or low)."""
    ranks = sorted((c % 52) // 4 for c in cards)
    suited = len({c % 4 for c in cards}) == 1
    run = (ranks[2] - ranks[0] == 2 and len(set(ranks)) == 3) or ranks == [0, 1, ACE]
    if suited and ranks == [10, 11, ACE]:
        return "suited-akq"
    if suited and run:
        return "straight-flush"
    if len(set(ranks)) == 1:
        return "three-of-a-kind"
    if run:
        return "straight"
    return "flush" if suited else None


def dealer_needs_card(hands: Sequence[Sequence[int]], dealer: Sequence[int]) -> bool:
    """BJ-4 with ``dealer_draws = "when-needed"`` (see the module docstring)."""
    if total(dealer) >= 17:
        return False
    if any(total(h) <= 21 and not is_blackjack(h) for h in hands):
        return True
    blackjacks = any(is_blackjack(h) for h in hands)
    return blackjacks and len(dealer) == 1 and value(dealer[0]) in (10, 11)


@dataclass
class ShoeRound:
    """One blackjack round as the rig played it."""

    round_id: str
    stakes: dict[int, dict[str, int]]  # seat -> {"main": .., "trilux": ..}
    hands: dict[int, list[int]] = field(default_factory=dict)
    dealer: list[int] = field(default_factory=list)
    outcome: str = "open"
    paid: dict[int, dict[str, int]] = field(default_factory=dict)


class ShoeTally:
    """What each round pays, from the cards the rig drew (see the module docstring)."""

    def __init__(self, trilux: PayTable, blackjack: Odds) -> None:
        self.trilux = trilux
        self.blackjack = blackjack
        self.rounds: dict[str, ShoeRound] = {}

    def settle(self, played: ShoeRound) -> None:
        dealer = total(played.dealer)
        dealer_bj = is_blackjack(played.dealer)
        for seat, stakes in played.stakes.items():
            cards, main = played.hands[seat], stakes["main"]
            mine = total(cards)
            if mine > 21 or (dealer_bj and not is_blackjack(cards)):
                back = 0
            elif is_blackjack(cards):
                back = (
                    main if dealer_bj else main + main * self.blackjack.to_win // self.blackjack.per
                )
            elif dealer > 21 or mine > dealer:
                back = 2 * main
            else:
                back = main if mine == dealer else 0
            paid = {"main": back}
            if stakes.get("trilux"):
                line = trilux_line([*cards[:2], played.dealer[0]])
                pay = self.trilux.pays.get(line) if line else None
                odds = Fraction(pay.to_win, pay.per) if isinstance(pay, Odds) else None
                paid["trilux"] = 0 if odds is None else int(stakes["trilux"] * (1 + odds))
            played.paid[seat] = paid
        played.outcome = "settled"


class ShoeDealer(Dealer):
    """The robot dealer and players of a blackjack table (tablet stakes and decisions)."""

    def __init__(self, table: SimTable, **options: Any) -> None:
        super().__init__(table, tablet=True, **options)

    def draw(self, played: ShoeRound, to: list[int]) -> bool:
        """One card from the shoe to ``to``; False once the round is no longer dealing
        (voided, or over)."""
        try:
            card = self.table.emulate("draw", count=1)["cards"][0]
        except RigFailure:  # the shoe is faulted (a misfeed): the table must void (MD-S2)
            self.wait(lambda s: s["state"] in ("void", "closed"), "the void of a faulted shoe")
            return False
        if card is not None:
            to.append(int(card))
        played_cards = sum(map(len, played.hands.values())) + len(played.dealer)

        def seen(status: dict[str, Any]) -> bool:
            gone = status["round"] != played.round_id or status["state"] in ("void", "closed")
            return gone or status.get("dealt", 0) >= played_cards

        status = self.wait(seen, "the table to see the card")
        return status["round"] == played.round_id and status["state"] not in ("void", "closed")

    def play_shoe(
        self, plan: RoundPlan, stakes: dict[int, dict[str, int]]
    ) -> tuple[RoundSeen, ShoeRound | None]:
        seen = RoundSeen(plan)
        self.ready()
        fault = plan.fault
        if fault is not None and fault.faults:
            self.table.emulate("faults", **fault.faults)

        def stake() -> None:
            for seat, wagers in stakes.items():
                self.enter(seat, {k: v for k, v in wagers.items() if v})

        status = self.lock(stake)
        seen.round_id = status["round"]
        if seen.round_id is None:
            seen.problems.append(
                f"LOCK did not start a round: {status['state']} {status['conditions']}"
            )
            return self._finish(seen), None
        played = ShoeRound(seen.round_id, stakes, {s: [] for s in stakes})
        if fault is not None and fault.after_lock == "disconnect":
            self.table.emulate("disconnect", seconds=0.2)
        elif fault is not None and fault.after_lock == "misfeed":
            self.table.emulate("fault", code="MISFEED", detail="card misfed")
        if self._kill_point(plan, "lock", seen):
            return seen, played
        self.wait(lambda s: s["state"] != "locked", "the round to open")
        order = [
            *[played.hands[s] for s in stakes],
            played.dealer,
            *[played.hands[s] for s in stakes],
        ]
        for n, to in enumerate(order):
            if n == len(stakes) and self._kill_point(plan, "dealing", seen):
                return seen, played
            if not self.draw(played, to):
                return self._voided(seen, self.status()), played
        status = self.wait(
            lambda s: s["state"] in ("verified", "void", "settled", "showdown"),
            "the initial deal's verdict",
        )
        if status["state"] == "void":
            return self._voided(seen, status), played
        if self._kill_point(plan, "verified", seen):
            return seen, played
        no_decision = all(total(hand) >= 21 for hand in played.hands.values())
        if (
            fault is not None
            and fault.after_lock == "extra card"
            and (status["state"] != "verified" or no_decision)
        ):
            # settled at the deal, or every seat has blackjack and the dealer's card is due
            # (against an ace or a ten): no card can come when none is due
            plan.fault = fault = None
        if fault is not None and fault.after_lock == "extra card":
            self.table.emulate("draw", count=1)
            return self._voided(seen, self.wait(lambda s: s["state"] == "void", "MD-S1")), played
        if value(played.dealer[0]) == 11 and status["state"] == "verified":
            for seat in stakes:
                self.table.call("round.decide", seat=seat, action="insurance", amount=0)
        for seat in stakes:
            hand = played.hands[seat]
            while total(hand) < 21:
                if total(hand) >= STAND_FROM:
                    self.table.call("round.decide", seat=seat, action="stand")
                    break
                self.table.call("round.decide", seat=seat, action="hit")
                if not self.draw(played, hand):
                    return self._voided(seen, self.status()), played
        if self._kill_point(plan, "confirm", seen):
            return seen, played
        while dealer_needs_card(list(played.hands.values()), played.dealer):
            if not self.draw(played, played.dealer):
                return self._voided(seen, self.status()), played
        status = self.wait(
            lambda s: s["state"] in ("settled", "void"), "the round to settle by itself"
        )
        if status["state"] == "void":
            return self._voided(seen, status), played
        seen.outcome = "settled"
        if self._kill_point(plan, "settled", seen):
            return seen, played
        return self._finish(seen), played


def shoe_fault(rng: random.Random) -> Fault:
    """A fault of a shoe round (see the module docstring).

    Findings of this soak, waiting for their fixes (the soak tolerates the first, leaves the
    second out): with frames lost, corrupted or duplicated on the line (a retransmission),
    the table now and then sees a card of the shoe twice and voids a good round as MD-S1, so
    the line faults expect no particular verdict here (the books must still agree); and a
    misfeed injected while the round is still LOCKED leaves the table CLOSED at the next
    LOCK."""
    choice = rng.randrange(5)
    if choice == 0:
        way, kind = rng.choice(("rx", "tx")), rng.choice(("drop", "corrupt", "duplicate"))
        n = rng.randint(1, 3)
        return Fault(f"{kind} frames", f"{n} {way}", {way: {kind: n}})
    if choice == 1:
        return Fault("lossy line", "20% of replies lost", {"tx": {"drop_rate": 0.2}})
    if choice in (2, 3):
        return Fault(
            "extra card", "a card when none is due", after_lock="extra card", expect="MD-S1"
        )
    return Fault("cable pulled", "after LOCK", after_lock="disconnect")


class ShoeSoak:
    """One blackjack table of the soak (one rig thread)."""

    def __init__(self, table: SimTable, *, faults: float, kill_rate: float, seed: int) -> None:
        self.table = table
        self.faults, self.kill_rate = faults, kill_rate
        self.rng = random.Random(seed)
        self.dealer = ShoeDealer(table)
        profile = table.config.profile
        self.tally = ShoeTally(
            profile.paytables["trilux"], profile.paytables["main"].pays["blackjack"]
        )
        self.report = SoakReport(seed=seed)

    def plan(self) -> tuple[RoundPlan, dict[int, dict[str, int]]]:
        rng = self.rng
        seats = tuple(sorted(rng.sample(SEATS, rng.randint(1, 4))))
        stakes = {s: {"main": rng.choice(MAINS), "trilux": rng.choice(TRILUX)} for s in seats}
        plan = RoundPlan(seats)
        if rng.random() < self.faults:
            plan.fault = shoe_fault(rng)
        if rng.random() < self.kill_rate:
            plan.kill_at = rng.choice(KILL_POINTS)
            plan.kill_delay = rng.uniform(0.0, 0.02)
        return plan, stakes

    def run(self, rounds: int, progress: Callable[[], None]) -> SoakReport:
        """Play ``rounds`` rounds, then reconcile; a stopping rig (RigStopped) cuts the round
        in play short, the rounds booked before it in the report."""
        try:
            for _ in range(rounds):
                plan, stakes = self.plan()
                try:
                    seen, played = self.dealer.play_shoe(plan, stakes)
                except RigFailure as exc:  # the table did not do what the rules say: report it
                    self.report.rounds += 1
                    first = "; ".join(str(exc).splitlines())  # with what the table was
                    where = f"a round with {plan.fault or 'no fault'}"
                    self.report.problems.append(f"{where}: {first}")
                    progress()
                    try:
                        self.dealer.ready()
                    except RigFailure as stuck:  # e.g. a round still waiting for a card
                        self.report.problems.append(f"this table stopped: {stuck}")
                        break
                    continue
                self.book(seen, played)
                progress()
            self.dealer.ready()
        finally:
            self.report.kills = self.dealer.kills
        self.report.problems += self.reconcile()
        return self.report

    def book(self, seen: RoundSeen, played: ShoeRound | None) -> None:
        report, plan = self.report, seen.plan
        report.rounds += 1
        report.problems += [f"{seen.round_id}: {p}" for p in seen.problems]
        if plan.fault is not None:
            report.faults[plan.fault.kind] += 1
        report.outcomes[seen.outcome + (f" {seen.rule}" if seen.rule else "")] += 1
        if played is None:
            return
        played.outcome = seen.outcome
        if seen.outcome == "settled":
            self.tally.settle(played)
        self.tally.rounds[played.round_id] = played
        expect = plan.fault.expect if plan.fault is not None else "verified"
        if expect is not None and not seen.killed:
            got = "verified" if seen.outcome == "settled" else seen.rule
            if got != expect:
                report.problems.append(
                    f"{played.round_id}: {plan.fault or 'no fault'} gave {got}, {expect} expected"
                )

    def reconcile(self) -> list[str]:
        """Every round against the ledger; the totals; the ledger's own checks."""
        problems = []
        chain = self.table.call("events.verify")
        if not chain["ok"]:
            problems.append(f"events verify: {chain['problems'][:3]}")
        taken = back = ledger_taken = ledger_back = 0
        with self.table.ledger() as ledger:
            problems += [f"ledger verify: {p}" for p in verify_ledger(ledger).problems[:10]]
            ids = {r[0] for r in ledger.db.execute("SELECT round_id FROM rounds")}
            for rid in sorted(ids - set(self.tally.rounds)):
                problems.append(f"{rid} is in the ledger but the rig never opened it")
            for rid, played in self.tally.rounds.items():
                record = ledger.round(rid)
                if played.outcome == "not opened":
                    if record is not None:
                        problems.append(
                            f"{rid}: the rig saw it not opened, the ledger {record.state}"
                        )
                    continue
                if record is None:
                    problems.append(f"{rid}: {played.outcome}, not in the ledger")
                    continue
                if record.state != played.outcome:
                    problems.append(f"{rid}: ledger {record.state}, rig {played.outcome}")
                if played.outcome != "settled":
                    continue  # a void returns every stake: verify_ledger holds the ledger to it
                stakes = {s: {k: v for k, v in w.items() if v} for s, w in played.stakes.items()}
                mine = _nonzero(played.paid)
                recorded = _nonzero(record.paid)
                if recorded != mine or _nonzero(record.stakes) != stakes:
                    cards = {s: " ".join(map(card_name, h)) for s, h in played.hands.items()}
                    problems.append(
                        f"{rid}: ledger stakes {_nonzero(record.stakes)} paid"
                        f" {recorded}, rig stakes {stakes} paid {mine}; the rig's"
                        f" cards {cards}, dealer"
                        f" {' '.join(map(card_name, played.dealer))}"
                    )
                taken += sum(v for w in stakes.values() for v in w.values())
                back += sum(v for w in mine.values() for v in w.values())
                ledger_taken += sum(v for w in record.stakes.values() for v in w.values())
                ledger_back += sum(v for w in record.paid.values() for v in w.values())
        if (taken, back) != (ledger_taken, ledger_back):
            problems.append(
                f"totals: rig took {taken} paid {back},"
                f" ledger took {ledger_taken} paid {ledger_back}"
            )
        self.report.meters = {"rounds": len(self.tally.rounds), "stakes": taken, "paid": back}
        return [f"{self.table.config.table_id}: {p}" for p in problems[:20]]


def _nonzero(paid: dict[int, dict[str, int]]) -> dict[int, dict[str, int]]:
    out = {s: {k: v for k, v in w.items() if v} for s, w in paid.items()}
    return {s: w for s, w in out.items() if w}


def run_shoe_soak(
    rounds: int,
    *,
    faults: float,
    kill_rate: float,
    seed: int | None = None,
    tables: int = 1,
    progress: Callable[[int], None] | None = None,
) -> SoakReport:
    """The whole blackjack soak on ``tables`` fresh trilux-gr tables (``rounds`` shared)."""
    seed = random.SystemRandom().randrange(2**31) if seed is None else seed
    shares = split_rounds(rounds, tables)
    one_more = RoundCounter(progress)

    with contextlib.ExitStack() as stack:
        sims = [
            stack.enter_context(
                SimTable(
                    SHOE_CONFIG,
                    # overrides merged into overrides: a None still removes the file's key
                    overrides=merged(
                        SOAK_OVERRIDES, {"table": {"id": f"SOAK-BJ-{n}"}}, keep_none=True
                    ),
                )
            )
            for n in range(1, tables + 1)
        ]
        soaks = [
            ShoeSoak(sim, faults=faults, kill_rate=kill_rate, seed=seed + i)
            for i, sim in enumerate(sims)
        ]
        for sim in sims:
            sim.wait_for_state("open", timeout=30.0)
        calls = [partial(s.run, n, one_more) for s, n in zip(soaks, shares, strict=True)]
        return run_tables(sims, calls, [s.report for s in soaks], seed)
