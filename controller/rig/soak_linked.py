"""``croupier rig soak --profile ch-bg``: Casino Hold'em tables on one linked Jumbo 7 pool in
PostgreSQL, with shuffler faults, ``kill -9`` of tables and the server restarted; at the end
every table's ledger, the linked store and the rig's own tally agree to the cent.

Theory of operation. Each table is a real ``croupierd`` (``tests/hil/tables/sim-ch-bg.toml``
with the soak's speed levers) whose ``[pools.jumbo7]`` is the linked pool of a private
PostgreSQL cluster (:mod:`controller.rig.pgserver`; ``--dsn`` names a server instead, which
the rig then never restarts). One rig thread per table plays rounds with the
:class:`~controller.rig.dealer.Dealer` of the UTH soak (the same shuffler faults and kill
points); now and then the deck is arranged to deal a seat a 7-card straight flush, the 100%
line (CH-8), whose jackpot is shared by stake over every Jumbo 7 stake of the rounds the
tables have in play at the hit (CH-9, ``share_scope = "link"``, the shipped ch-bg profile):
each table pays its seats' shares at its own settlement, and a round voided after the hit
(a kill, a misdeal) gives its share back to the pool.

Server restarts (:class:`LinkGate`): at set points of the run every table finishes the round
it is playing, the server is stopped, the tables play rounds without the link (the table
takes no Jumbo 7 stake while it shows the link down, and plays its other bets), the server
is started again, and the tables go on once they show the link back. A rig thread plays a
round only once its table shows the link as the gate says (up or down), so the rig knows
which rounds the link took without reading the controller's books. A table killed while the
server is down restarts without its ledger's witness (the store) and stays closed
(``witness``) until the server is back and the witness answers: its rig thread sits the
outage out (:meth:`LinkGate.sit_out`) and plays again once the table has opened.

At the end (:meth:`LinkedSoak.reconcile`): ``croupier pool verify``'s checks on the store;
each table's ledger verified, its journal chain, and each round the rig played in the ledger
with the outcome and the Jumbo 7 payments the rig computed; the rig's tally
(:class:`~controller.rig.jumbo7.LinkedTally`, replayed in the order of the store's journal)
against the pool row meter for meter and against every table's row; each store round in the
state the rig saw, with the rig's payments, and no round counted that the rig did not see
taken.
"""

from __future__ import annotations

import contextlib
import json
import random
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from typing import Any

import psycopg

from controller.books.ledger.rounds import SHARE
from controller.books.ledger.verify import verify_ledger
from controller.books.linked.devserver import DevServer
from controller.books.linked.verify import verify_store
from controller.engine.pools.config import PoolConfig, pool_config
from controller.engine.profiles import load_profile
from controller.rig import pgserver
from controller.rig.dealer import Dealer, RoundSeen, plan_round
from controller.rig.errors import RigFailure
from controller.rig.jumbo7 import LinkedRound, LinkedTally
from controller.rig.soak import (
    SOAK_OVERRIDES,
    RoundCounter,
    SoakReport,
    run_tables,
    split_rounds,
)
from controller.rig.table import REPO, SimTable, merged

CH_CONFIG = REPO / "tests" / "hil" / "tables" / "sim-ch-bg.toml"
POOL = "jumbo7"
SEED = 10_000_000  # EUR 100,000.00, as the shipped ch-bg table
JACKPOTS = 0.01  # share of the rounds dealt a 7-card straight flush on purpose
LINK_TIMEOUT = 30.0  # seconds a table may take to show the link down or back
SEATS = [1, 2, 3, 4, 5, 6]  # the seats with a sensor on the sim table
WITNESS = "witness"  # the condition of a table whose ledger's witness (the store) is silent


def link_overrides(table_id: str, dsn: str) -> dict[str, Any]:
    """The soak table's configuration: its own ID, Jumbo 7 linked to ``dsn``."""
    link = {
        "dsn": dsn,
        "pool": POOL,
        "heartbeat": 1,
        "operation_timeout": 2,
        "reconnect_max": 1,
        "seed": None,
        "contribution_rate": None,
    }
    return merged(  # overrides merged into overrides: the link's Nones remove the file's keys
        SOAK_OVERRIDES,
        {"table": {"id": table_id, "seats": SEATS}, "pools": {POOL: link}},
        keep_none=True,
    )


def seven_card_straight_flush(seats: tuple[int, ...], rng: random.Random) -> list[int]:
    """A deck order (top first: community 5, 2 per seat, the dealer's 2) dealing the first
    seat a 7-card straight flush whose board alone is no 5-card one (CH-8)."""
    suit, low = rng.randrange(4), rng.randrange(-1, 7)  # -1: the ace low (A-2-...-7)
    run = [(r % 13) * 4 + suit for r in range(low, low + 7)]
    board, hole = [run[1], run[2], run[4], run[5], run[6]], [run[0], run[3]]
    rng.shuffle(board)
    rest = [c for c in range(52) if c not in run]
    rng.shuffle(rest)
    return board + hole + rest[: 2 * len(seats)]


class LinkGate:
    """Where the rig threads wait while the server is stopped or started (see the module
    docstring): :meth:`checkpoint` before each round; :meth:`hold` / :meth:`release` by the
    thread that restarts the server."""

    def __init__(self, tables: int) -> None:
        self._cond = threading.Condition()
        self.active = tables  # rig threads still playing
        self._waiting = 0
        self._sitting = 0  # rig threads whose table cannot play until the link is up
        self._held = False
        self.up = True

    def checkpoint(self) -> bool:
        """Wait while the gate is held; returns whether the link should be up."""
        with self._cond:
            while self._held:
                self._waiting += 1
                self._cond.notify_all()
                self._cond.wait()
                self._waiting -= 1
            return self.up

    def sit_out(self) -> None:
        """Wait until the link is up again (the table cannot play without it)."""
        with self._cond:
            self._sitting += 1
            self._cond.notify_all()
            self._cond.wait_for(lambda: self.up and not self._held)
            self._sitting -= 1

    def all_sitting_out(self) -> bool:
        with self._cond:
            return self._sitting >= self.active

    def finished(self) -> None:
        with self._cond:
            self.active -= 1
            self._cond.notify_all()

    def hold(self) -> None:
        """Every rig thread between two rounds (or done)."""
        with self._cond:
            self._held = True
            self._cond.wait_for(lambda: self._waiting + self._sitting >= self.active)

    def release(self, up: bool) -> None:
        with self._cond:
            self.up, self._held = up, False
            self._cond.notify_all()


@dataclass
class LinkedReport(SoakReport):
    restarts: int = 0
    store: dict[str, int] | None = None  # the pool's meters at the end (rig = store)

    def to_json(self) -> dict[str, Any]:
        return {**super().to_json(), "server_restarts": self.restarts, "pool": self.store}


class LinkedSoak:
    """One table of the linked soak (one rig thread)."""

    def __init__(
        self,
        table: SimTable,
        tally: LinkedTally,
        gate: LinkGate,
        *,
        faults: float,
        kill_rate: float,
        seed: int,
        jackpots: float = JACKPOTS,
    ) -> None:
        self.table = table
        self.table_id = table.config.table_id
        self.tally, self.gate = tally, gate
        self.faults, self.kill_rate, self.jackpots = faults, kill_rate, jackpots
        self.rng = random.Random(seed)
        self.dealer = Dealer(table, waits_out=frozenset({WITNESS}))
        self.stake = tally.config.rules.stake
        self.report = SoakReport(seed=seed)
        self.played: list[LinkedRound] = []

    def run(self, rounds: int, progress: Callable[[], None]) -> SoakReport:
        try:
            played = 0
            while played < rounds:
                up = self.gate.checkpoint()
                if WITNESS in self.table.status()["conditions"]:
                    if not up:
                        self.gate.sit_out()
                        continue
                    self.table.wait_until(
                        lambda: WITNESS not in self.table.status()["conditions"],
                        "the witness to answer",
                        timeout=LINK_TIMEOUT,
                    )
                self._wait_for_link(up)
                plan = plan_round(
                    self.rng, self.table.config.seats, self.faults, self.kill_rate, self._jackpot
                )
                self.book(self.dealer.play(plan), up)
                played += 1
                progress()
            self.dealer.ready()
        finally:
            self.gate.finished()
            self.report.kills = self.dealer.kills
        return self.report

    def _jackpot(self, rng: random.Random, seats: tuple[int, ...]) -> list[int] | None:
        if rng.random() < self.jackpots:
            return seven_card_straight_flush(seats, rng)
        return None

    def _wait_for_link(self, up: bool) -> None:
        def shown() -> bool:
            down = "progressive-link" in self.table.status()["conditions"]
            return down != up

        what = f"the table to show the link {'up' if up else 'down'}"
        self.table.wait_until(shown, what, timeout=LINK_TIMEOUT)

    def book(self, seen: RoundSeen, up: bool) -> None:
        report, plan = self.report, seen.plan
        rid = seen.round_id
        report.rounds += 1
        report.problems += [f"{self.table_id}/{rid}: {p}" for p in seen.problems]
        if plan.fault is not None:
            report.faults[plan.fault.kind] += 1
        report.outcomes[seen.outcome + (f" {seen.rule}" if seen.rule else "")] += 1
        report.jackpots += seen.jackpot
        if rid is None:
            return
        stakes = dict.fromkeys(plan.seats, self.stake) if up else {}
        cards = None
        if seen.hands is not None:
            community = seen.hands.community
            cards = {s: (*hole, *community) for s, hole in seen.hands.seats.items()}
        played = LinkedRound(self.table_id, rid, stakes, seen.outcome, cards)
        self.played.append(played)
        self.tally.book(played)
        expect = plan.fault.expect if plan.fault is not None else None
        if expect is not None and not seen.killed:
            got = "verified" if seen.outcome == "settled" else seen.rule
            if got != expect:
                report.problems.append(f"{rid}: {plan.fault} gave {got}, {expect} expected")

    def check_ledger(self) -> list[str]:
        """This table's ledger and journal, and every round the rig played in it."""
        problems = []
        chain = self.table.call("events.verify")
        if not chain["ok"]:
            problems.append(f"events verify: {chain['problems'][:3]}")
        with self.table.ledger() as ledger:
            problems += [f"ledger verify: {p}" for p in verify_ledger(ledger).problems[:10]]
            # a round ID the table never opened (killed before LOCK took) is given to the
            # next round: the last round played under an ID is the one the ledger holds
            for played in {p.round_id: p for p in self.played}.values():
                record = ledger.round(played.round_id)
                if played.outcome == "not opened":
                    if record is not None:
                        problems.append(
                            f"{played.round_id}: the rig saw it not opened, the"
                            f" ledger has it {record.state}"
                        )
                    continue
                if record is None:
                    problems.append(f"{played.round_id}: {played.outcome}, not in the ledger")
                    continue
                paid = {
                    seat: sum(v for k, v in wagers.items() if k in (POOL, SHARE))
                    for seat, wagers in record.paid.items()
                }
                paid = {s: v for s, v in paid.items() if v}
                mine = played.paid if played.outcome == "settled" else {}
                if played.outcome == "voided":
                    paid = {}  # every stake back: verify_ledger holds the ledger to it
                if record.state != played.outcome or paid != mine:
                    problems.append(
                        f"{played.round_id}: ledger {record.state} paid Jumbo 7"
                        f" {paid}, rig {played.outcome} paid {mine}"
                    )
        return [f"{self.table_id}: {p}" for p in problems[:20]]


@dataclass(frozen=True)
class StoreRound:
    """A round row of the store: its state, Jumbo 7 stakes and awards by seat."""

    state: str
    stakes: dict[int, int]
    paid: dict[int, int]

    @classmethod
    def from_row(cls, state: str, stakes: str, outcome: str | None) -> StoreRound:
        staked = {
            int(s): v if isinstance(v, int) else v.get(POOL, 0)
            for s, v in json.loads(stakes).items()
        }
        awards = json.loads(outcome)["awards"] if outcome else {}
        paid = {int(s): a[2] + a[4] + a[5] for s, a in awards.items()}  # amount, share, envy
        return cls(
            state, {s: v for s, v in staked.items() if v}, {s: v for s, v in paid.items() if v}
        )


ABSENT = StoreRound("absent", {}, {})


def _rows(conn: psycopg.Connection, query: str) -> list[dict[str, Any]]:
    cur = conn.execute(query, (POOL,))
    names = [d.name for d in cur.description or ()]
    return [dict(zip(names, row, strict=True)) for row in cur.fetchall()]


def store_books(
    dsn: str,
) -> tuple[list[tuple[str, str]], dict[str, StoreRound], dict[str, Any], dict[str, dict[str, Any]]]:
    """The store's journal order ((kind, table/round)), its rounds, the pool row and the
    tables' rows."""
    with psycopg.connect(dsn) as conn:
        order = [
            (row["kind"], json.loads(row["data"])["round"])
            for row in _rows(
                conn,
                "SELECT kind, data FROM croupier.journal WHERE pool = %s AND kind IN"
                " ('round.opened', 'round.voided', 'round.settled') ORDER BY seq",
            )
        ]
        rounds = {
            f"{r['table_id']}/{r['round_id']}": StoreRound.from_row(
                r["state"], r["stakes"], r["outcome"]
            )
            for r in _rows(conn, "SELECT * FROM croupier.rounds WHERE pool = %s")
        }
        pools = _rows(conn, "SELECT * FROM croupier.pools WHERE name = %s")
        tables = {
            r["table_id"]: r for r in _rows(conn, "SELECT * FROM croupier.tables WHERE pool = %s")
        }
    return order, rounds, pools[0] if pools else {}, tables


def reconcile_store(dsn: str, tally: LinkedTally) -> list[str]:
    """The rig's tally against the store: verify, the pool, each table, each round."""
    problems = [f"pool verify: {p}" for p in verify_store(dsn, POOL).problems[:10]]
    order, rounds, pool, tables = store_books(dsn)
    tally.replay(order)
    problems += tally.problems
    problems += [f"store pool: {d}" for d in tally.differences("store", pool)]
    for table in sorted(tally.tables):
        problems += [
            f"store table {table}: {d}"
            for d in tally.differences("store", tables.get(table, {}), table)
        ]
    for key, played in tally.rounds.items():
        row = rounds.get(key, ABSENT)
        if not played.stakes or played.outcome == "not opened":
            if row.state not in ("absent", "voided", "abandoned"):  # never counted
                problems.append(
                    f"{key}: the rig saw no Jumbo 7 stake taken, the store has it {row.state}"
                )
        elif (row.state, row.stakes) != (played.outcome, played.stakes) or (
            row.state == "settled" and row.paid != played.paid
        ):
            problems.append(
                f"{key}: store {row.state} stakes {row.stakes} paid {row.paid},"
                f" rig {played.outcome} stakes {played.stakes}"
                f" paid {played.paid}"
            )
    return problems[:40]


def restarter(
    server: DevServer,
    gate: LinkGate,
    done: Callable[[], int],
    points: list[int],
    down_rounds: int,
    counter: list[int],
) -> None:
    """Stop the server at each of ``points`` (rounds done), let the tables play about
    ``down_rounds`` without it, start it again."""
    for point in points:
        while done() < point and gate.active:
            time.sleep(0.01)
        if not gate.active:
            return
        gate.hold()
        server.stop()
        gate.release(up=False)
        while done() < point + down_rounds and gate.active and not gate.all_sitting_out():
            time.sleep(0.01)
        gate.hold()
        server.start()
        counter[0] += 1
        gate.release(up=True)


def run_linked_soak(
    rounds: int,
    *,
    faults: float,
    kill_rate: float,
    seed: int | None = None,
    tables: int = 3,
    dsn: str | None = None,
    restarts: int = 2,
    jackpots: float = JACKPOTS,
    progress: Callable[[int], None] | None = None,
) -> LinkedReport:
    """The whole linked soak on ``tables`` fresh ch-bg tables (``rounds`` shared among them);
    ``dsn``: an existing server to make the store on (no restarts then)."""
    if tables < 1:
        raise RigFailure("the linked soak needs at least one table")
    seed = random.SystemRandom().randrange(2**31) if seed is None else seed
    shares = split_rounds(rounds, tables)
    restarted = [0]
    one_more = RoundCounter(progress)

    with contextlib.ExitStack() as stack:
        server = None
        if dsn is None:
            server = pgserver.private_server()
            stack.callback(server.destroy)
            dsn = server.dsn
        name = pgserver.fresh_database(dsn)
        admin_dsn, dsn = dsn, pgserver.dsn_with(dsn, name)
        stack.callback(pgserver.drop_database, admin_dsn, name)
        config: PoolConfig = pool_config(POOL, load_profile("ch-bg").progressive, seed=SEED)
        pgserver.create_pool(dsn, config)
        tally = LinkedTally(config)
        gate = LinkGate(tables)
        sims = [
            stack.enter_context(SimTable(CH_CONFIG, overrides=link_overrides(f"SOAK-CH-{n}", dsn)))
            for n in range(1, tables + 1)
        ]
        soaks = [
            LinkedSoak(
                sim,
                tally,
                gate,
                faults=faults,
                kill_rate=kill_rate,
                seed=seed + i,
                jackpots=jackpots,
            )
            for i, sim in enumerate(sims)
        ]
        for sim in sims:
            sim.wait_for_state("open", timeout=30.0)
        points = [rounds * (k + 1) // (restarts + 1) for k in range(restarts)] if server else []
        down = max(tables, rounds // 20)
        helpers = []
        if server is not None:
            helpers.append(
                partial(restarter, server, gate, lambda: one_more.done, points, down, restarted)
            )
        report = run_tables(
            sims,
            [partial(s.run, n, one_more) for s, n in zip(soaks, shares, strict=True)],
            [s.report for s in soaks],
            seed,
            kind=LinkedReport,
            helpers=helpers,
        )
        report.restarts = restarted[0]
        if report.stopped is not None:  # stopped by a signal: the rounds so far, unreconciled
            return report
        # the store first: its replay gives each round the Jumbo 7 payments the ledgers must
        # show (before, every round still had none and the ledgers' check was empty)
        report.problems += reconcile_store(dsn, tally)
        for soak in soaks:
            report.problems += soak.check_ledger()
        report.store = {k: tally.meters[k] for k in tally.meters}
        report.tables = [tally.tables.get(s.table_id, {}) for s in soaks]
        return report
