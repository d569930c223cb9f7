"""Helpers of the regulatory tests: a ledger whose wall clock the test sets, a small
gaming history across three gaming days (Europe/Athens, boundary 06:00), and the signed
documents made from it (the day report, a jackpot round's evidence bundle)."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from datetime import UTC, date, datetime
from pathlib import Path
from typing import Any

from controller.books.evidence import build_bundle, recorded_round
from controller.books.ledger.reader import LedgerReader
from controller.books.ledger.store import Ledger
from controller.books.reports.day import ReportContext
from controller.books.reports.documents import signed_day_report
from controller.books.reports.gaming_day import GamingDayRule
from controller.books.reports.signing import create_key, load_private, sign_json
from controller.books.reports.theoretical import par_figures
from controller.books.surveillance import SurveillanceStore
from controller.engine.games import settle
from controller.engine.pools.config import pool_config
from controller.engine.profiles import load_profile

REPO = Path(__file__).resolve().parents[2]

PROFILE = load_profile("uth-gr")
RULE = GamingDayRule.parse("06:00", "Europe/Athens")
DAY = date(2026, 11, 23)  # 04:00 UTC on the 23rd .. 04:00 UTC on the 24th (EET, UTC+2)
_PAR = par_figures(PROFILE)


def context() -> ReportContext:
    return ReportContext("T-7", "uth-gr", "EUR", RULE, _PAR)


class SetWall:
    """A wall clock the test moves; each reading adds a millisecond so entries differ."""

    def __init__(self) -> None:
        self.now = 0.0

    def at(self, text: str) -> None:
        self.now = datetime.fromisoformat(text).timestamp()

    def __call__(self) -> float:
        self.now += 0.001
        return self.now


def seat(ante: int, progressive: bool = True) -> dict[str, int]:
    return {"ante": ante, "blind": ante, **({"progressive": 100} if progressive else {})}


@dataclass
class DayFacts:
    """What the ledger answered during the day, to check the report against."""

    opening: int = 0
    closing: int = 0
    contributions: int = 0
    awards_from_pool: int = 0
    hits: int = 0
    corrections: int = 0
    handle: dict[str, int] = field(default_factory=dict)
    paid: dict[str, int] = field(default_factory=dict)
    voided: int = 0
    settled: int = 0


def _count(facts: DayFacts, stakes: dict, paid: dict) -> None:
    for wagers in stakes.values():
        for w, a in wagers.items():
            facts.handle[w] = facts.handle.get(w, 0) + a
    for wagers in paid.values():
        for w, a in wagers.items():
            facts.paid[w] = facts.paid.get(w, 0) + a


def play_history(ledger: Ledger, wall: SetWall) -> DayFacts:
    """Rounds the evening before, during and after the gaming day; returns the day's facts
    as the ledger reported them event by event."""
    facts = DayFacts()
    wall.at("2026-11-23T03:30:00+00:00")  # 05:30 Athens: the 22nd's gaming day
    ledger.open_round("before-1", {1: seat(500), 2: seat(1000)}, 1.0)
    ledger.settle_round(
        "before-1",
        2.0,
        hits={"uth": {}},
        payouts={1: {"ante": 1000, "blind": 500}, 2: {"ante": 0, "blind": 0}},
    )
    facts.opening = ledger.pool("uth")[1].current
    wall.at("2026-11-23T04:00:00+00:00")  # 06:00 Athens: the day starts
    stakes = {1: seat(500), 3: seat(2500), 4: seat(500, progressive=False)}
    opened = ledger.open_round("day-1", stakes, 3.0)
    facts.contributions += opened.contributions["uth"].to_current
    settled = ledger.settle_round(
        "day-1",
        4.0,
        hits={"uth": {1: "full-house", 3: "four-of-a-kind"}},
        payouts={
            1: {"ante": 1000, "blind": 500},
            3: {"ante": 0, "blind": 0},
            4: {"ante": 1000, "blind": 1500},
        },
    )
    _count(facts, stakes, settled.paid)
    facts.settled += 1
    wall.at("2026-11-23T10:00:00+00:00")
    voided_stakes = {2: seat(1000)}
    opened = ledger.open_round("day-2", voided_stakes, 5.0)
    voided = ledger.void_round("day-2", 6.0, rule="MD-S1", cause="wrong count to seat 2")
    facts.contributions += (
        opened.contributions["uth"].to_current - voided.reversals["uth"].from_current
    )
    facts.voided += 1
    wall.at("2026-11-23T20:00:00+00:00")
    stakes = {1: seat(500), 2: seat(500), 5: seat(500)}
    opened = ledger.open_round("day-3", stakes, 7.0)
    facts.contributions += opened.contributions["uth"].to_current
    settled = ledger.settle_round(
        "day-3",
        8.0,
        hits={"uth": {2: "royal-flush"}},
        payouts={
            1: {"ante": 0, "blind": 0},
            2: {"ante": 1000, "blind": 250500},
            5: {"ante": 0, "blind": 0},
        },
    )
    _count(facts, stakes, settled.paid)
    facts.settled += 1
    outcome = settled.outcomes["uth"]
    facts.awards_from_pool = outcome.jackpot_paid
    facts.hits = 2 + sum(1 for a in outcome.awards.values() if a.amount or a.share or a.envy)
    wall.at("2026-11-24T02:00:00+00:00")
    before = ledger.pool("uth")[1].current
    after = ledger.correct_meter(
        "uth",
        "current",
        before + 1234,
        9.0,
        technician="K. Papadopoulos",
        reason="display fault ticket 42",
    )
    facts.corrections = after.current - before
    facts.closing = after.current
    wall.at("2026-11-24T04:30:00+00:00")  # the next gaming day
    ledger.open_round("after-1", {1: seat(500)}, 10.0)
    ledger.settle_round("after-1", 11.0, hits={"uth": {}}, payouts={1: {"ante": 0, "blind": 0}})
    return facts


def new_ledger(path, wall: SetWall) -> Ledger:
    wall.at("2026-11-20T12:00:00+00:00")
    ledger = Ledger.open(path, now=0.0, wall_clock=wall)
    ledger.configure_pool(
        pool_config("uth", PROFILE.progressive, seed=500_000, reserve_rate="2%"), 0.0
    )
    return ledger


NOW = datetime(2026, 11, 25, 12, 0, tzinfo=UTC)


def fixture_bundle(reader: LedgerReader, store: SurveillanceStore, **extra: Any) -> dict[str, Any]:
    """The evidence bundle of the fixture history's jackpot round (day-3) at table T-7."""
    return build_bundle(
        reader,
        recorded_round(store, "day-3"),
        "day-3",
        table_id="T-7",
        generated="2026-11-24T09:00:00+00:00",
        manifest=None,
        **extra,
    )


def signed_bundle(root: Path) -> tuple[Path, dict[str, Any]]:
    """The jackpot round of the fixture history (day-3), recorded as the royal example,
    bundled and signed with ``root/key.pem`` (made here) into ``root/day-3.json``; returns
    the file and the round's settlement."""
    wall = SetWall()
    with new_ledger(root / "ledger.sqlite3", wall) as ledger:
        play_history(ledger, wall)
    record = json.loads((REPO / "examples" / "uth-gr-royal.json").read_text())
    result = settle(load_profile("uth-gr"), record).to_json()
    store = SurveillanceStore(root / "surveillance.sqlite3")
    store.add_round(
        "day-3", "uth-gr", {k: v for k, v in record.items() if k != "profile"}, result, 0.0
    )
    create_key(root / "key.pem")
    with LedgerReader.open(root / "ledger.sqlite3") as reader:
        bundle = fixture_bundle(reader, store)
    store.close()
    path = root / "day-3.json"
    path.write_text(json.dumps(sign_json(bundle, load_private(root / "key.pem")), indent=1))
    return path, result


def signed_day_json(root: Path) -> bytes:
    """The fixture history's day report in its signed JSON form, signed with
    ``root/report-key.pem`` (made here)."""
    wall = SetWall()
    with new_ledger(root / "ledger.sqlite3", wall) as ledger:
        play_history(ledger, wall)
    create_key(root / "report-key.pem")
    with LedgerReader.open(root / "ledger.sqlite3") as reader:
        return signed_day_report(
            reader,
            DAY,
            context(),
            now=NOW,
            form="json",
            key=load_private(root / "report-key.pem"),
        )
