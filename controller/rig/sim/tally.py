"""The simulator's own books and the invariants, checked after every step.

Written without the controller's accounting code: the tally reads the ledger's rows with its
own SQL and keeps its own counts (the stakes the dealer placed, the cards the shuffler
dealt for each round, the verdicts the injected faults call for); the only controller code it
calls is the engine, to settle the recorded round again (the settlement must be the engine's).

Invariants (each violation names one, with the round and what differed):

- ``books``: a pool's meter equals its seed plus the contributions of the rounds not voided
  since the last reset, less what was won from it (all from the rows), to the cent; never
  negative, never above the pool's cap; the stakes taken equal the stakes the dealer placed;
- ``once``: a round opened, voided or settled at most once in the journal;
- ``void``: a voided round returned every stake (every one the table knew of at the void)
  and reversed every contribution;
- ``cards``: no card twice in a deck within a round, the recorded cards are the cards the
  shuffler dealt to that round, each place's in the positions it dealt them to (the cards of
  a replacement packet in the positions of the exposed cards they replace, MD-X1..X3);
- ``exposure``: the table replaces the exposed cards the rules let it replace and refuses
  the others (MD-X1: the dealer's, before any player acted);
- ``journal``: the journal's chain verifies (at the end of a run and after every crash);
- ``closed``: the table is never OPEN while a blocking condition holds;
- ``verdict``: a void's rule is one the rules require for the faults injected in the round
  (a crash: MD-S2);
- ``settlement``: the round's record holds every seat's hold'em wagers and decision as the
  dealer entered them (no seat's missing, none added), the settlement equals the engine's
  settlement of the recorded round, and the ledger paid what it says for every wager of every
  seat.
"""

from __future__ import annotations

import json
import math
from collections import Counter
from fractions import Fraction
from typing import TYPE_CHECKING, Any

from controller.books.ledger.verify import verify_ledger
from controller.engine.cards import parse_cards
from controller.engine.games import settle
from controller.table.events import (
    ArchiveRound,
    CardsExposed,
    EnterWagers,
    LedgerWrite,
    OpenRound,
    SettleRound,
    VoidRound,
)
from controller.table.exposure import exposure_procedure
from controller.table.machine import ADVISORY, PROGRESSIVE_ONLY, TableState
from controller.table.shuffler_events import tag_of
from firmware_bridge.codes import ErrorCode
from firmware_bridge.messages import DealReply

Dealt = tuple[str, tuple[int | None, ...]]  # a packet the shuffler dealt: its tag, its cards
Exposed = tuple[str, tuple[int, ...]]  # cards exposed and replaced: their place, positions
Entered = dict[int, tuple[dict[str, int], Any]]  # seat -> the wagers and decision entered
FAULT_NOTICE = 15.0  # seconds a table may take to hear of a shuffler fault (link timeout, RTO)
MONEY_KINDS = {"round.opened": 1, "round.voided": 2, "round.settled": 4}

if TYPE_CHECKING:
    from controller.rig.sim.players import RoundPlan
    from controller.rig.sim.world import World


class Tally:
    def __init__(self, world: World) -> None:
        self.world = world
        self.violations: list[dict[str, Any]] = []
        self.outcomes: Counter[str] = Counter()  # settled, voided MD-x
        self.closed = 0  # rounds settled or voided
        self.digest_lines: list[str] = []
        self.plan: RoundPlan | None = None
        self.plans: dict[str, RoundPlan] = {}  # round -> its plan
        self.crashed: set[str] = set()  # rounds in play at a crash
        self.cards: dict[str, list[Dealt]] = {}  # round -> its packets: (tag, cards)
        # round -> the exposures the table took, in order: (destination, positions)
        self.replaced: dict[str, list[Exposed]] = {}
        # round -> each seat's hold'em wagers and decision as the dealer entered them
        self.entered: dict[str, Entered] = {}
        self.archived_rounds: dict[str, ArchiveRound] = {}
        # settled rounds whose archive is still to come (the table archives a round once the
        # ledger answered its settlement): the row, the cards dealt, the exposures the table
        # took and the wagers entered, checked with it
        self.unarchived: dict[
            str, tuple[dict[str, Any], list[Dealt] | None, list[Exposed], Entered]
        ] = {}
        self.journal_seen = 0  # the journal entries read so far
        self.verified_entries = 0  # the journal's length at the last full verification
        self.journal_rounds: dict[str, int] = {}  # round -> the MONEY_KINDS bits seen
        # each pool since its last reset: the stakes of the rounds not voided, times the rate
        self.fed: dict[str, Fraction] = {}
        self.fed_by_round: dict[str, dict[str, Fraction]] = {}
        self.won: dict[str, int] = {}
        self.cycles: dict[str, int] = {}
        self.fault_since: float | None = None  # since when the shuffler machine is in fault
        # each pool's contribution rate, read from the configuration's text (not its parser)
        self.rates = {
            name: Fraction(str(raw["contribution_rate"]).rstrip("%")) / 100
            for name, raw in world.pool_texts.items()
        }

    def fail(self, invariant: str, round_id: str | None, detail: str) -> None:
        self.violations.append({"invariant": invariant, "round": round_id, "detail": detail})
        self.world.log(f"VIOLATION {invariant}: {detail}")

    # --- what the world tells the tally -------------------------------------------------------

    def begin(self, plan: RoundPlan) -> None:
        self.plan = plan

    def abandon(self) -> None:
        self.plan = None

    def dealt(self, round_id: str | None, reply: DealReply) -> None:
        if round_id is not None:
            cards = tuple(c.card for c in reply.cards)
            self.cards.setdefault(round_id, []).append((str(reply.tag), cards))

    def exposed(
        self, round_id: str, event: CardsExposed, state: TableState, refused: str | None
    ) -> None:
        """The table took (``refused`` None) or refused the dealer's report of exposed cards,
        handed to it in ``state``. Checked against the plan when the dealer reported them on a
        verified deal, as he does: the plan says which exposures the rules refuse."""
        procedure = exposure_procedure(self.world.profile, event.destination)
        # the positions the table replaced: with MD-X1 "both", the whole place
        replaced = procedure.replaced(event.positions) if procedure else event.positions
        where = (event.destination, replaced)
        if refused is None:
            self.replaced.setdefault(round_id, []).append(where)
        plan = self.plans.get(round_id)
        if plan is None or state is not TableState.VERIFIED:
            return
        cards = f"{event.destination} cards {list(event.positions)}"
        if plan.exposure_refused(event.destination) and refused is None:
            self.fail(
                "exposure", round_id, f"{cards} exposed when the rules refuse it were replaced"
            )
        elif not plan.exposure_refused(event.destination) and refused is not None:
            self.fail("exposure", round_id, f"{cards} exposed: refused ({refused})")

    def wagered(self, round_id: str, event: EnterWagers) -> None:
        """The dealer entered a seat's hold'em wagers and decision for the round in play
        (taken or refused: a settled round must hold them all; the dealer enters each seat's
        once, stakes and decision together)."""
        self.entered.setdefault(round_id, {})[event.seat] = (dict(event.stakes), event.decision)

    def powered_up(self, recovered: list[str]) -> None:
        self.unarchived.clear()  # a settlement's answer lost at a crash: its record with it
        for rid in recovered:
            self.crashed.add(rid)
            self._pool_rows(rid, self._closed(rid))
        # the whole ledger verified after a crash, once the journal has doubled since the last
        # verification: every crash would cost time in proportion to the ledger (quadratic in
        # a long run); this keeps the total linear, and the end of the run verifies it all
        if (recovered or self.world.crashes) and self._entries() >= 2 * self.verified_entries:
            self.check_journal()

    def written(self, request: LedgerWrite) -> None:
        for item in request.items:
            if isinstance(item, OpenRound):
                if self.plan is not None:
                    self.plans[item.round_id] = self.plan
                self._pool_rows(item.round_id, self._opened(item.round_id))
            elif isinstance(item, VoidRound | SettleRound):
                self._pool_rows(item.round_id, self._closed(item.round_id))
            if isinstance(item, VoidRound) and item.stakes is not None:
                self._returned_all(item.round_id, item.stakes)
        if request.money:
            self.check_pools()

    def archived(self, archive: ArchiveRound) -> None:
        settled = self.unarchived.pop(archive.round_id, None)
        if settled is None:
            self.archived_rounds[archive.round_id] = archive
        else:
            self._check_record(archive.round_id, archive, *settled)

    # --- the checks --------------------------------------------------------------------------

    def _row(self, rid: str) -> dict[str, Any] | None:
        cur = self.world.ledger.db.execute(
            "SELECT state, stakes, staked, rule, paid, paid_total FROM rounds WHERE round_id = ?",
            (rid,),
        )
        row = cur.fetchone()
        if row is None:
            return None
        return dict(
            zip(("state", "stakes", "staked", "rule", "paid", "paid_total"), row, strict=True)
        )

    def _journal_count(self, rid: str) -> Counter[str]:
        """The round's money entries in the journal (read as they are written: each entry
        once, by its own SQL)."""
        rows = self.world.ledger.db.execute(
            "SELECT seq, kind, json_extract(data, '$.round') FROM journal WHERE seq > ?"
            " AND kind IN ('round.opened', 'round.voided', 'round.settled')",
            (self.journal_seen,),
        ).fetchall()
        for seq, kind, round_id in rows:
            bit = MONEY_KINDS[kind]
            seen = self.journal_rounds.get(round_id, 0)
            if seen & bit:
                self.fail("once", round_id, f"a second {kind} in the journal")
            self.journal_rounds[round_id] = seen | bit
            self.journal_seen = max(self.journal_seen, seq)  # the next read starts after it
        seen = self.journal_rounds.get(rid, 0)
        return Counter(kind for kind, bit in MONEY_KINDS.items() if seen & bit)

    def _opened(self, rid: str) -> str | None:
        """Check an opened round's row; returns its state (``None``: no row)."""
        row = self._row(rid)
        if row is None:
            self.fail("books", rid, "the round was opened but has no row")
            return None
        plan = self.plans.get(rid)
        stake = self.world.profile.progressive.stake if self.world.profile.progressive else 0
        stakes = {int(s): w for s, w in json.loads(row["stakes"]).items()}
        if plan is not None and stake and self.world.config.pools:
            for seat, wagers in stakes.items():
                if seat not in plan.seats:
                    self.fail(
                        "books", rid, f"a stake taken from seat {seat}, where none was placed"
                    )
                amount = sum(wagers.values())
                if amount != stake:
                    self.fail(
                        "books", rid, f"seat {seat} staked {amount}, the dealer placed {stake}"
                    )
        state: str = row["state"]
        return state

    def _closed(self, rid: str) -> str | None:
        """Check a closed round's row; returns its state (``None``: no row)."""
        row = self._row(rid)
        if row is None or row["state"] == "open":
            self.fail(
                "books", rid, f"the round is not closed in the ledger ({row and row['state']})"
            )
            return row and row["state"]
        counts = self._journal_count(rid)
        if any(n > 1 for n in counts.values()) or sum(counts.values()) > 2:
            self.fail("once", rid, f"journal entries {dict(counts)}")
        self.closed += 1
        if row["state"] == "voided":
            self._voided(rid, row)
        else:
            self._settled(rid, row)
        self.plans.pop(rid, None)
        self.cards.pop(rid, None)
        self.replaced.pop(rid, None)
        self.entered.pop(rid, None)
        state: str = row["state"]
        return state

    def _voided(self, rid: str, row: dict[str, Any]) -> None:
        rule = row["rule"]
        self.outcomes[f"voided {rule}"] += 1
        self.digest_lines.append(f"{rid} voided {rule}")
        if json.loads(row["paid"] or "{}") != json.loads(row["stakes"]):
            self.fail("void", rid, f"paid {row['paid']} of stakes {row['stakes']}")
        for contribution, reversal in self.world.ledger.db.execute(
            "SELECT contribution, reversal FROM round_pools WHERE round_id = ?", (rid,)
        ).fetchall():
            given, taken = json.loads(contribution), json.loads(reversal or "null")
            pairs = (
                ("to_current", "from_current"),
                ("to_reserve", "from_reserve"),
                ("overflow", "from_overflow"),
            )
            if taken is None or any(given[a] != taken[b] for a, b in pairs):
                self.fail("void", rid, f"contribution {contribution} reversed by {reversal}")
        plan = self.plans.get(rid)
        allowed = set(plan.allowed) if plan is not None else {rule}
        if rid in self.crashed:
            allowed.add("MD-S2")
        if rule not in allowed:
            self.fail(
                "verdict",
                rid,
                f"voided by {rule}; the injected faults call for {sorted(map(str, allowed))}",
            )

    def _returned_all(self, rid: str, stakes: dict[int, dict[str, int]]) -> None:
        """A void the table asked for returned every stake the table knew of (MD): those
        placed during the round too (a blackjack double, an insurance, a Play)."""
        row = self._row(rid)
        known = {str(seat): wagers for seat, wagers in stakes.items()}
        if row is not None and json.loads(row["paid"] or "{}") != known:
            self.fail("void", rid, f"returned {row['paid']} of the table's stakes {known}")

    def _settled(self, rid: str, row: dict[str, Any]) -> None:
        self.outcomes["settled"] += 1
        plan = self.plans.get(rid)
        if (
            plan is not None
            and rid not in self.crashed
            and plan.must_void
            and plan.fault_reached(len({tag for tag, _ in self.cards.get(rid, [])}))
        ):
            want = sorted(str(a) for a in plan.allowed)
            self.fail("verdict", rid, f"settled, but the injected faults call for {want}")
        archive = self.archived_rounds.pop(rid, None)
        self.digest_lines.append(f"{rid} settled {row['paid']}")
        seen = (row, self.cards.get(rid), self.replaced.get(rid, []), self.entered.get(rid, {}))
        if archive is None:
            # the archive comes with the ledger's answer (or never: a crash before it took the
            # record with the memory)
            self.unarchived[rid] = seen
            return
        self._check_record(rid, archive, *seen)

    def _check_record(
        self,
        rid: str,
        archive: ArchiveRound,
        row: dict[str, Any],
        dealt: list[Dealt] | None,
        replaced: list[Exposed],
        entered: Entered,
    ) -> None:
        """The settled round's record (``archive``) against the wagers the dealer
        ``entered``, the engine, the ledger's ``row``, the cards ``dealt`` to the round and
        the exposures the table ``replaced``."""
        if not self.world.shoe:  # a shoe's bets are placed at OPEN and played hand by hand
            self._wagers(rid, archive.record, entered)
        result = settle(self.world.profile, archive.record, table_record=True).to_json()
        if result != archive.result.to_json():
            self.fail("settlement", rid, "the engine settles the recorded round differently")
        # every wager of every seat, the ledger's against the engine's (one missing on either
        # side is a difference too)
        ledger = {
            (int(seat), name): amount
            for seat, wagers in json.loads(row["paid"] or "{}").items()
            for name, amount in wagers.items()
        }
        engine = {
            (seat["seat"], name): wager["paid"]
            for seat in result["seats"]
            for name, wager in seat["wagers"].items()
        }
        for seat, name in sorted(ledger.keys() | engine.keys()):
            if ledger.get((seat, name)) != engine.get((seat, name)):
                self.fail(
                    "settlement",
                    rid,
                    f"seat {seat} {name}: ledger paid {ledger.get((seat, name))},"
                    f" the engine {engine.get((seat, name))}",
                )
        self._cards(rid, archive.record, dealt, replaced)

    def _wagers(self, rid: str, record: dict[str, Any], entered: Entered) -> None:
        """Every seat of a hold'em record holds the table wagers and decision the dealer
        entered for it, and no other seat holds any (the pool stake aside: LOCK took it, the
        ``books`` check): the settlement checked next is then of every seat's bets."""
        progressive = self.world.profile.progressive
        pool = progressive.bet if progressive else None
        recorded: Entered = {}
        for seat in record.get("seats", []):
            stakes = {k: v for k, v in seat.get("stakes", {}).items() if k != pool}
            if stakes or seat.get("decision") is not None:
                recorded[seat["seat"]] = (stakes, seat.get("decision"))
        for seat in sorted(recorded.keys() | entered.keys()):
            got, want = recorded.get(seat), entered.get(seat)
            if got != want:
                self.fail(
                    "settlement",
                    rid,
                    f"seat {seat}: recorded wagers {got}, the dealer entered {want}",
                )

    def _cards(
        self,
        rid: str,
        record: dict[str, Any],
        dealt: list[Dealt] | None,
        replaced: list[Exposed],
    ) -> None:
        decks = self.world.shuffler.machine.decks
        names: list[str] = []
        for key in ("community", "dealer"):
            value = record.get(key)
            if isinstance(value, list):
                names += value
            elif isinstance(value, dict):
                names += value.get("cards", [])
        for seat in record.get("seats", []):
            names += seat.get("cards", [])
        cards = [int(c) for c in parse_cards(" ".join(names), unique=False)]
        seen = Counter(cards)
        twice = [c for c, n in seen.items() if n > decks]
        if twice:
            self.fail("cards", rid, f"card codes {twice} dealt more than {decks} time(s)")
        if dealt is not None and self.world.hand_forming:
            delivered = Counter(c for _tag, cs in dealt for c in cs if c is not None)
            if not seen <= delivered:
                self.fail("cards", rid, "the recorded cards are not the cards the shuffler dealt")
            self._positions(rid, record, dealt, replaced)

    def _positions(
        self, rid: str, record: dict[str, Any], dealt: list[Dealt], replaced: list[Exposed]
    ) -> None:
        """Each place's recorded cards are the cards its packet brought, with each replacement
        packet's (the next packet to the same place) in the positions of the exposure the
        table took for it (MD-X1..X3): a round settles on the replacements."""
        packets: dict[str, list[tuple[int | None, ...]]] = {}
        for tag, cards in dealt:
            packets.setdefault(tag, []).append(cards)
        places = {"community": record.get("community"), "dealer": record.get("dealer")}
        for seat in record.get("seats", []):
            places[f"seat:{seat['seat']}"] = seat.get("cards", [])
        for place, names in places.items():
            if not isinstance(names, list) or not packets.get(str(tag_of(place))):
                continue
            first, *replacements = packets[str(tag_of(place))]
            held = list(first)
            exposures = [positions for where, positions in replaced if where == place]
            for positions, packet in zip(exposures, replacements, strict=False):
                for position, card in zip(positions, packet, strict=False):
                    held[position - 1] = card
            want = [c for c in held if c is not None]
            got = [int(c) for c in parse_cards(" ".join(names), unique=False)]
            if got != want:
                exposed = f" (exposed {exposures})" if exposures else ""
                self.fail(
                    "cards",
                    rid,
                    f"the {place}'s recorded cards are not the cards dealt to its positions"
                    f"{exposed}",
                )

    def check_pools(self) -> None:
        db = self.world.ledger.db
        for name, pool in self.world.config.pools.items():
            row = db.execute("SELECT current, cycle FROM pools WHERE name = ?", (name,)).fetchone()
            if row is None:
                continue
            current, cycle = row
            if current < 0:
                self.fail("books", None, f"pool {name} at {current}")
            cap = getattr(pool, "cap", None)
            if cap is not None and current > cap:
                self.fail("books", None, f"pool {name} at {current}, above its cap {cap}")
            expected = self._pool_model(name, pool.seed, cycle)
            if expected != current:
                self.fail("books", None, f"pool {name} at {current}, the rows add up to {expected}")

    def _pool_model(self, name: str, seed: int, cycle: int) -> int:
        """The seed, plus the rate times the stakes of the rounds not voided since the last
        reset (whole units), less what was won from the pool since."""
        if self.cycles.get(name, cycle) != cycle:  # a reset (PRG-5): the tally starts again
            self.fed[name] = Fraction(0)
            self.won[name] = 0
        self.cycles[name] = cycle
        return seed + math.floor(self.fed.get(name, Fraction(0))) - self.won.get(name, 0)

    def _pool_rows(self, rid: str, state: str | None) -> None:
        """The round's pool rows into the tally: its stakes fed (opened), taken back
        (voided), its hits (settled); ``state`` is the round's, as just read (``None``: the
        round has no row, a violation already reported)."""
        db = self.world.ledger.db
        if state is None:
            return
        if state == "open":
            fed = {}
            for pool, stakes in db.execute(
                "SELECT pool, stakes FROM round_pools WHERE round_id = ?", (rid,)
            ).fetchall():
                staked = sum(int(v) for v in json.loads(stakes).values())
                fed[pool] = Fraction(staked) * self.rates[pool]
                self.fed[pool] = self.fed.get(pool, Fraction(0)) + fed[pool]
            self.fed_by_round[rid] = fed
        elif state == "voided":
            for pool, amount in self.fed_by_round.pop(rid, {}).items():
                self.fed[pool] -= amount
        else:
            self.fed_by_round.pop(rid, None)
            for pool, won, cycle in db.execute(
                "SELECT pool, coalesce(sum(from_pool), 0), max(cycle) FROM hits"
                " WHERE round_id = ? GROUP BY pool",
                (rid,),
            ).fetchall():
                if self.cycles.get(pool, cycle) == cycle:
                    self.won[pool] = self.won.get(pool, 0) + int(won)

    def check_step(self) -> None:
        w = self.world
        m = w.machine
        device = w.shuffler.machine
        faulty = device.fault != ErrorCode.OK or device.door_open
        if not faulty:
            self.fault_since = None
        elif self.fault_since is None:
            self.fault_since = w.now
        if m.state is TableState.OPEN:
            blocking = set(m.conditions) - ADVISORY - PROGRESSIVE_ONLY
            if blocking:
                self.fail("closed", None, f"the table is open with {sorted(blocking)}")
            # what the simulator knows of the machine itself: a fault the table had time to
            # hear of (events are retransmitted until acknowledged) keeps it closed
            if self.fault_since is not None and w.now - self.fault_since > FAULT_NOTICE:
                self.fail(
                    "closed",
                    None,
                    f"the table is open while the shuffler is in {device.fault.name}"
                    f" since t={self.fault_since:.3f}",
                )

    def _entries(self) -> int:
        return self.world.ledger.journal.head()[0]

    def check_journal(self) -> None:
        self.verified_entries = self._entries()
        report = verify_ledger(self.world.ledger)
        if not report.ok:
            self.fail("journal", None, "; ".join(report.problems[:2]))


def _amounts(data: Any) -> dict[str, int]:
    if not isinstance(data, dict):
        return {}
    return {k: v for k, v in data.items() if isinstance(v, int) and not isinstance(v, bool)}
