"""The gaming-day meter report: what each pool and each wager did in one gaming day, and the
proof that it adds up (docs/regulatory.md).

How it is built. The journal's money entries are replayed from the first one with the same
pure functions the ledger uses (``controller.books.ledger.verify.Replay``); the pools as they
stood before the day's first entry are the *opening* meters, after its last entry the
*closing* meters. An entry belongs to the day whose bounds hold its wall-clock time; the day
is the run of entries from the first at or after the day's start to the last before its end
(the journal is in commit order; a wall clock set back mid-day does not reorder it).

Reconciliation. Every movement is also summed from the ledger's own rows, independently of
the replay: contributions and overflow from the round pool rows of the rounds opened that
day, reversals from those voided that day, awards from the hit history, adjustments from the
correction rows and the ``pool.retired`` entries (a retirement or transfer moves the same
correction meters). For each pool the report then checks::

    closing = opening + contributions - reversals - awards + seeds + adjustments

for the displayed amount and the reserve, each sum against the replay's meters, the closing
amount against the last amount the ledger recorded as displayed, and, for a day that has not
ended, against the pools table. A broken journal chain, a journal that does not replay, or
any difference refuses the report (:class:`ReconciliationError`), naming every difference.
"""

from __future__ import annotations

import json
from collections import Counter, defaultdict
from dataclasses import dataclass
from datetime import date, datetime
from decimal import ROUND_HALF_EVEN, Decimal
from typing import Any

from controller.books.ledger.journal import verify_chain, wall_text
from controller.books.ledger.lifecycle import retired_pools
from controller.books.ledger.reader import LedgerView
from controller.books.ledger.records import load_stakes
from controller.books.ledger.rounds import ENVY, SHARE
from controller.books.ledger.rules import RECORD_KEYS, rules_between
from controller.books.ledger.verify import MONEY_KINDS, Replay
from controller.books.reports.gaming_day import GamingDayRule
from controller.books.reports.theoretical import ParFigure, as_percent
from controller.engine.pools.config import PoolConfig
from controller.engine.pools.meters import PoolState
from controller.errors import CroupierError

FORMAT = 1


class ReconciliationError(CroupierError, ValueError):
    """The day does not reconcile; ``problems`` lists every difference. Nothing is printed."""

    def __init__(self, day: date, problems: list[str]) -> None:
        self.problems = problems
        super().__init__(
            f"gaming day {day} does not reconcile, the report is refused: "
            + "; ".join(problems[:5])
            + (f" (and {len(problems) - 5} more)" if len(problems) > 5 else "")
        )


@dataclass(frozen=True)
class ReportContext:
    """What the table configuration says about the report (``[report]``)."""

    table_id: str
    profile: str
    currency: str
    rule: GamingDayRule
    par: dict[str, ParFigure]  # side bet -> its exact PAR figures (theoretical.par_figures)


def percent(part: int, whole: int) -> str | None:
    if not whole:
        return None
    value = Decimal(part * 100) / Decimal(whole)
    return str(value.quantize(Decimal("0.01"), rounding=ROUND_HALF_EVEN))


def _seq_bounds(view: LedgerView, start: datetime, end: datetime) -> tuple[int, int, int]:
    """(first entry of the day, first entry after it, journal head)."""
    head = view.journal.head()[0]

    def first_at(instant: datetime) -> int:
        row = view.db.execute(
            "SELECT min(seq) FROM journal WHERE wall >= ?", (wall_text(instant.timestamp()),)
        ).fetchone()
        return row[0] if row[0] is not None else head + 1

    return first_at(start), first_at(end), head


def _replay(view: LedgerView, first: int, end: int) -> tuple[Replay, dict, dict]:
    replay = Replay()
    opening: dict[str, tuple[PoolConfig, PoolState]] | None = None
    for entry in view.journal.entries(kinds=MONEY_KINDS):
        if entry.seq >= end:
            break
        if opening is None and entry.seq >= first:
            opening = dict(replay.pools)
        replay.apply(entry.seq, entry.kind, entry.data)
    if opening is None:
        opening = dict(replay.pools)
    return replay, opening, dict(replay.pools)


def _row_sums(view: LedgerView, first: int, end: int) -> dict[str, Counter]:
    """The day's movements per pool, summed from the round, hit and correction rows."""
    sums: dict[str, Counter] = defaultdict(Counter)
    for pool, text in view.db.execute(
        "SELECT p.pool, p.contribution FROM round_pools p JOIN rounds r USING (round_id) "
        "WHERE r.open_seq >= ? AND r.open_seq < ?",
        (first, end),
    ):
        c = json.loads(text)
        sums[pool].update(
            contributions=c["to_current"],
            overflow=c["overflow"],
            reserve_contributions=c["to_reserve"],
            stakes=c["stake"],
        )
    for pool, text in view.db.execute(
        "SELECT p.pool, p.reversal FROM round_pools p JOIN rounds r USING (round_id) "
        "WHERE r.state = 'voided' AND r.close_seq >= ? AND r.close_seq < ?",
        (first, end),
    ):
        r = json.loads(text)
        sums[pool].update(
            contributions=-r["from_current"],
            overflow=-r["from_overflow"],
            reserve_contributions=-r["from_reserve"],
        )
    for pool, from_pool in view.db.execute(
        "SELECT pool, from_pool FROM hits WHERE seq >= ? AND seq < ?", (first, end)
    ):
        sums[pool].update(won_from_pool=from_pool)
    for pool, meter, old, new in view.db.execute(
        "SELECT pool, meter, old, new FROM corrections WHERE seq >= ? AND seq < ?", (first, end)
    ):
        sums[pool].update(
            {"corrections" if meter == "current" else "reserve_corrections": new - old}
        )
    for event in _lifecycle(view, first, end):  # retirements and transfers move the same meters
        sums[event["pool"]].update(
            corrections=-event["amount"], reserve_corrections=-event["reserve"]
        )
        if event["to"] is not None:
            sums[event["to"]].update(
                corrections=event["amount"], reserve_corrections=event["reserve"]
            )
    return sums


def _lifecycle(view: LedgerView, first: int, end: int) -> list[dict[str, Any]]:
    """The day's ``pool.retired`` entries (controller.books.ledger.lifecycle)."""
    return [
        {**e.data, "entry": e.seq, "wall": e.wall}
        for e in view.journal.entries(kinds={"pool.retired"}, start=first)
        if e.seq < end
    ]


def _lifecycle_lines(events: list[dict[str, Any]], name: str) -> list[dict[str, Any]]:
    """What the day's retirements and transfers did to pool ``name``, for the report."""
    lines = []
    for e in events:
        common = {k: e[k] for k in ("reason_code", "reason", "technician", "wall", "entry")}
        if e["pool"] == name:
            action = f"retired, transferred to {e['to']}" if e["to"] else "retired, amount held"
            lines.append(
                {"action": action, "amount": -e["amount"], "reserve": -e["reserve"], **common}
            )
        elif e["to"] == name:
            lines.append(
                {
                    "action": f"transfer in from {e['pool']}",
                    "amount": e["amount"],
                    "reserve": e["reserve"],
                    **common,
                }
            )
    return lines


def _delta(before: PoolState | None, after: PoolState, meter: str) -> int:
    return getattr(after, meter) - (getattr(before, meter) if before is not None else 0)


def _pool_section(
    view: LedgerView,
    name: str,
    opening: tuple[PoolConfig, PoolState] | None,
    closing: tuple[PoolConfig, PoolState],
    sums: Counter,
    first: int,
    end: int,
    problems: list[str],
) -> dict[str, Any]:
    config, after = closing
    before = opening[1] if opening else None
    d = {
        m: _delta(before, after, m)
        for m in (
            "contributions",
            "overflow",
            "reserve_contributions",
            "won_from_pool",
            "won_fixed",
            "envy_paid",
            "seeded_house",
            "seeded_reserve",
            "corrections",
            "reserve_corrections",
            "cycle",
            "voids",
            "stakes_returned",
            "rounds",
            "stakes_in",
        )
    }
    for meter in (
        "contributions",
        "overflow",
        "reserve_contributions",
        "won_from_pool",
        "corrections",
        "reserve_corrections",
    ):
        if sums[meter] != d[meter]:
            problems.append(
                f"pool {name}: {meter} from the rows {sums[meter]} but the meters moved {d[meter]}"
            )
    open_shown = before.current if before else 0
    open_reserve = before.reserve if before else 0
    seeds = d["seeded_house"] + d["seeded_reserve"]
    expected = (
        open_shown + sums["contributions"] - sums["won_from_pool"] + seeds + sums["corrections"]
    )
    if expected != after.current:
        problems.append(
            f"pool {name}: closing amount {after.current} but opening {open_shown} "
            f"+ movements make {expected}"
        )
    expected_reserve = (
        open_reserve
        + sums["reserve_contributions"]
        + sums["overflow"]
        - d["seeded_reserve"]
        + sums["reserve_corrections"]
    )
    if expected_reserve != after.reserve:
        problems.append(
            f"pool {name}: closing reserve {after.reserve} but opening "
            f"{open_reserve} + movements make {expected_reserve}"
        )
    hits = [
        {
            "hit": h,
            "round": r,
            "seat": s,
            "line": line,
            "amount": a,
            "from_pool": fp,
            "share": sh,
            "envy": e,
            "wall": w,
        }
        for h, r, s, line, a, fp, sh, e, w in view.db.execute(
            "SELECT hit_id, round_id, seat, line, amount, from_pool, share, envy, wall FROM hits "
            "WHERE pool = ? AND seq >= ? AND seq < ? ORDER BY hit_id",
            (name, first, end),
        )
    ]
    adjustments = [
        {
            "correction": c,
            "meter": m,
            "old": o,
            "new": n,
            "change": n - o,
            "technician": t,
            "reason": r,
            "wall": w,
        }
        for c, m, o, n, t, r, w in view.db.execute(
            "SELECT correction_id, meter, old, new, technician, reason, wall FROM corrections "
            "WHERE pool = ? AND seq >= ? AND seq < ? ORDER BY correction_id",
            (name, first, end),
        )
    ]
    return {
        "pool": name,
        "bet": config.bet,
        "seed": config.seed,
        "opening": {"displayed": open_shown, "reserve": open_reserve},
        "closing": {"displayed": after.current, "reserve": after.reserve},
        "qualifying_stakes": d["stakes_in"],
        "rounds": d["rounds"],
        "contributions": d["contributions"],
        "reserve_contributions": d["reserve_contributions"],
        "overflow": d["overflow"],
        "voids": d["voids"],
        "awards": {
            "count": len(hits),
            "from_pool": d["won_from_pool"],
            "fixed_by_house": d["won_fixed"],
            "envy_by_house": d["envy_paid"],
        },
        "hits": hits,
        "resets": d["cycle"],
        "seeds": {"by_house": d["seeded_house"], "by_reserve": d["seeded_reserve"]},
        "adjustments": adjustments,
        "adjustment_total": {"displayed": d["corrections"], "reserve": d["reserve_corrections"]},
        "lifecycle": _lifecycle_lines(_lifecycle(view, first, end), name),
        "retired": retired_pools(view.db).get(name, end) < end,
    }


def _rounds_and_wagers(
    view: LedgerView, first: int, end: int, pool_bets: set[str]
) -> tuple[dict[str, Any], dict[str, dict[str, int]]]:
    counts: Counter = Counter()
    by_rule: Counter = Counter()
    wagers: dict[str, dict[str, int]] = defaultdict(lambda: {"handle": 0, "paid": 0, "rounds": 0})
    opened = view.db.execute(
        "SELECT count(*) FROM rounds WHERE open_seq >= ? AND open_seq < ?", (first, end)
    ).fetchone()[0]
    still_open = view.db.execute(
        "SELECT count(*) FROM rounds WHERE open_seq < ? AND (close_seq IS NULL OR close_seq >= ?)",
        (end, end),
    ).fetchone()[0]
    for state, rule, stakes, paid in view.db.execute(
        "SELECT state, rule, stakes, paid FROM rounds WHERE close_seq >= ? AND close_seq < ?",
        (first, end),
    ):
        counts[state] += 1
        if state == "voided":
            by_rule[rule or "unknown"] += 1
            continue
        staked = load_stakes(stakes)
        seen: set[str] = set()
        for seat_wagers in staked.values():
            for wager, amount in seat_wagers.items():
                wagers[wager]["handle"] += amount
                seen.add(wager)
        progressive = sorted(seen & pool_bets)
        for seat, seat_paid in load_stakes(paid).items():
            for wager, amount in seat_paid.items():
                # a share of the pool (CH-9) and the envy bonus (PRG-4) are paid on the
                # progressive stake of the seat's round
                if wager in (SHARE, ENVY):
                    own = [w for w in progressive if w in staked.get(seat, {})] or progressive
                    wager = own[0] if own else wager
                wagers[wager]["paid"] += amount
        for wager in seen:
            wagers[wager]["rounds"] += 1
    rounds = {
        "opened": opened,
        "settled": counts["settled"],
        "voided": counts["voided"],
        "voided_by_rule": dict(sorted(by_rule.items())),
        "open_at_end": still_open,
    }
    return rounds, wagers


def build_day_report(
    view: LedgerView, day: date, context: ReportContext, *, now: datetime
) -> dict[str, Any]:
    """The report of one gaming day (see the module docstring); raises ReconciliationError
    when it does not reconcile."""
    start, end_time = context.rule.bounds(day)
    chain = verify_chain(view.journal)
    if not chain.ok:
        raise ReconciliationError(day, [f"journal: {p}" for p in chain.problems])
    first, end, head = _seq_bounds(view, start, end_time)
    replay, opening, closing = _replay(view, first, end)
    problems = list(replay.problems)
    sums = _row_sums(view, first, end)
    pools = []
    for name in sorted(closing):
        pools.append(
            _pool_section(
                view, name, opening.get(name), closing[name], sums[name], first, end, problems
            )
        )
        recorded = replay.shown.get(name)
        if end > head and recorded is not None and recorded != closing[name][1].current:
            problems.append(
                f"pool {name}: the ledger last recorded {recorded} displayed but "
                f"the replay closes at {closing[name][1].current}"
            )
    if end > head:  # the day runs to the end of the journal: the pools table must agree
        for name, (_, stored) in view.pools().items():
            if name in closing and stored.to_row() != closing[name][1].to_row():
                problems.append(f"pool {name}: the pools table differs from the journal's replay")
    bets = {config.bet for config, _ in closing.values()}
    rounds, wagers = _rounds_and_wagers(view, first, end, bets)
    if problems:
        raise ReconciliationError(day, problems)
    opening_by_bet = {p["bet"]: p["opening"]["displayed"] for p in pools}
    wager_rows = []
    for wager in sorted(wagers):
        w = wagers[wager]
        hold = w["handle"] - w["paid"]
        figure = context.par.get(wager)
        theoretical = as_percent(figure.hold(opening_by_bet.get(wager))) if figure else None
        wager_rows.append(
            {
                "wager": wager,
                "rounds": w["rounds"],
                "handle": w["handle"],
                "paid": w["paid"],
                "hold": hold,
                "hold_percent": percent(hold, w["handle"]),
                "theoretical_hold_percent": theoretical,
            }
        )
    last = view.db.execute(
        "SELECT seq, hash FROM journal WHERE seq < ? ORDER BY seq DESC LIMIT 1", (end,)
    ).fetchone()
    return {
        "document": "gaming-day-report",
        "format": FORMAT,
        "table": context.table_id,
        "profile": context.profile,
        "currency": context.currency,
        "gaming_day": day.isoformat(),
        "gaming_day_start": context.rule.describe(),
        "from": start.isoformat(),
        "to": end_time.isoformat(),
        "complete": now >= end_time,
        "generated": now.isoformat(timespec="seconds"),
        # the rules played under: in force at the day's first entry, and each change in it
        "rules": [
            {k: e[k] for k in ("seq", "wall", "rules_sha256", *RECORD_KEYS)}
            for e in rules_between(view.db, first, end)
        ],
        "journal": {
            "first": first if first < end else None,
            "last": end - 1 if first < end else None,
            "last_hash": last[1] if last else None,
        },
        "rounds": rounds,
        "pools": pools,
        "wagers": wager_rows,
        "reconciled": True,
    }
