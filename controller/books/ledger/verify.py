"""``croupier meters verify``: every invariant of the ledger, checked from scratch.

1. SQLite's own ``quick_check``.
2. Every sealed row against its checksum.
3. Each pool's meter identities (``controller.engine.pools.meters.identity_problems``).
4. The journal's hash chain (``journal.verify_chain``); if it is broken, the replay below is
   skipped, since the journal can no longer be trusted.
5. Rounds against the journal, in SQL: every round row points to the ``round.opened`` entry
   of the same round ID, and to the closing entry of its state; every pool row of a round
   carries exactly what the journal recorded; as many rounds as ``round.opened`` entries, so
   no round was opened twice; hits and corrections point to their entries.
6. The replay: the journal's money entries are applied in order to fresh pools with the same
   pure functions the ledger uses (``controller.engine.pools``), recomputing every contribution,
   reversal and award and comparing it with what each entry recorded. It checks on the way that
   each round is opened once and closed at most once (it affects a pool at most once), that the
   displayed amount never goes down except by a win, a void's reversal of the round's own
   contribution or a technician's correction, that the cap is never set below the displayed
   amount, and that parameters change only while no round is open on the pool. At the end the
   recomputed pools must equal the stored pools meter for meter: the pool equals the amount
   recomputed from the journal.
7. Rows against the replay, column by column: every round row (state, stakes of every wager,
   the total staked, what each wager paid and the total paid, the rule and cause of a void,
   the entries and times of opening and closing) must be what the journal's entries of that
   round make it, and the hit history what the replayed awards make it; so a row edited and
   sealed again (by someone holding the key) still disagrees with the untouched entry.
8. The self-check status row against the last ``selfcheck.failed`` / ``selfcheck.cleared``
   entry (or ``ledger.created``): a failed self-check cannot be turned into a passed one
   without a journaled, credentialed clear. And the ledger key history (``meta``) against the
   ``ledger.created`` / ``ledger.keyed`` entries.
9. The rules the table played under (``rules.py``): every ``rules.changed`` entry's digest
   recomputed from the rules it names, each linked to the one before it, every start entry
   naming the rules last journaled, the ``meta`` row pointing to the last. A journal from
   before these entries has none, and passes.

A database file too damaged to read raises LedgerCorruptError naming it (one line).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from controller.books.ledger import rounds
from controller.books.ledger.db import key_history
from controller.books.ledger.journal import (
    KEY_KINDS,
    Entry,
    Progress,
    canonical,
    counted,
    verify_chain,
)
from controller.books.ledger.lifecycle import retired_pools
from controller.books.ledger.reader import LedgerView
from controller.books.ledger.records import SelfCheckState, stakes_to_json
from controller.books.ledger.rules import rules_problems
from controller.books.ledger.schema import SEALED
from controller.engine.pools.awards import outcome_to_json
from controller.engine.pools.config import PoolConfig
from controller.engine.pools.meters import (
    Contribution,
    PoolArithmeticError,
    PoolState,
    award,
    contribute,
    correct,
    identity_problems,
    new_pool,
    resolve,
)

MONEY_KINDS = {
    "pool.created",
    "pool.configured",
    "round.opened",
    "round.voided",
    "round.settled",
    "meter.corrected",
    "pool.retired",
}
LIST_AT_MOST = 10  # problems of one kind listed before "and N more"


@dataclass
class Report:
    problems: list[str] = field(default_factory=list)
    stats: dict[str, Any] = field(default_factory=dict)

    @property
    def ok(self) -> bool:
        return not self.problems


def _listed(problems: list[str], items: list[str], what: str) -> None:
    problems.extend(items[:LIST_AT_MOST])
    if len(items) > LIST_AT_MOST:
        problems.append(f"... and {len(items) - LIST_AT_MOST} more {what}")


def sealed_row_problems(view: LedgerView, tables: tuple[str, ...] = tuple(SEALED)) -> list[str]:
    problems: list[str] = []
    for table in tables:
        bad = [
            f"{table} row {'/'.join(map(str, key))} does not match its checksum"
            for key in view.db.bad_seals(table)
        ]
        _listed(problems, bad, f"{table} rows with a bad checksum")
    return problems


def pool_problems(view: LedgerView) -> list[str]:
    return [
        f"pool {name}: {p}"
        for name, (config, state) in view.pools().items()
        for p in identity_problems(state, config)
    ]


# SQL cross-checks of rows against journal entries: (description, query counting offenders).
CROSS_CHECKS = (
    (
        "round rows whose open_seq is not the round.opened entry of that round",
        "SELECT count(*) FROM rounds r LEFT JOIN journal j ON j.seq = r.open_seq "
        "WHERE j.kind IS NOT 'round.opened' OR json_extract(j.data, '$.round') IS NOT r.round_id",
    ),
    (
        "closed round rows whose close_seq is not the entry that closed that round",
        "SELECT count(*) FROM rounds r LEFT JOIN journal j ON j.seq = r.close_seq "
        "WHERE r.state != 'open' AND (j.kind IS NOT 'round.' || r.state "
        "OR json_extract(j.data, '$.round') IS NOT r.round_id)",
    ),
    (
        "open round rows that carry a closing entry",
        "SELECT count(*) FROM rounds WHERE state = 'open' AND close_seq IS NOT NULL",
    ),
    (
        "round pool rows whose contribution differs from the journal",
        "SELECT count(*) FROM round_pools p LEFT JOIN rounds r ON r.round_id = p.round_id "
        "LEFT JOIN journal j ON j.seq = r.open_seq "
        "WHERE json_extract(j.data, '$.pools.\"' || p.pool || '\"') IS NOT p.contribution",
    ),
    (
        "round pool rows whose reversal or awards differ from the journal",
        "SELECT count(*) FROM round_pools p JOIN rounds r ON r.round_id = p.round_id "
        "LEFT JOIN journal j ON j.seq = r.close_seq WHERE CASE r.state "
        "WHEN 'open' THEN p.reversal IS NOT NULL OR p.outcome IS NOT NULL "
        "ELSE json_extract(j.data, '$.pools.\"' || p.pool || '\"') "
        "IS NOT coalesce(p.reversal, p.outcome) END",
    ),
    (
        "round.opened entries naming a pool with no round pool row",
        "SELECT count(*) FROM journal j, json_each(j.data, '$.pools') e "
        "WHERE j.kind = 'round.opened' AND NOT EXISTS (SELECT 1 FROM round_pools p "
        "WHERE p.round_id = json_extract(j.data, '$.round') AND p.pool = e.key)",
    ),
    (
        "round.opened entries without a round row (or rounds opened twice)",
        "SELECT (SELECT count(*) FROM journal WHERE kind = 'round.opened') "
        "- (SELECT count(*) FROM rounds)",
    ),
    (
        "hit rows not pointing to the round.settled entry of their round",
        "SELECT count(*) FROM hits h LEFT JOIN journal j ON j.seq = h.seq "
        "WHERE j.kind IS NOT 'round.settled' OR json_extract(j.data, '$.round') IS NOT h.round_id",
    ),
    (
        "correction rows not pointing to their meter.corrected entry",
        "SELECT abs((SELECT count(*) FROM journal WHERE kind = 'meter.corrected') "
        "- (SELECT count(*) FROM corrections)) + (SELECT count(*) FROM corrections c "
        "LEFT JOIN journal j ON j.seq = c.seq WHERE j.kind IS NOT 'meter.corrected')",
    ),
)


_SELFCHECK_KINDS = "('ledger.created', 'selfcheck.failed', 'selfcheck.cleared')"


def selfcheck_row_problems(view: LedgerView, *, recent: int | None = None) -> list[str]:
    """The self-check status row against the journal entry that set it: that entry is the
    last one changing the status, and the row says what it says. ``recent``: the power-up's
    quick form, which looks for a later status change only among the last ``recent`` entries
    (a range of the primary key; a closed table writes few entries, so a hidden failure is
    among them; verify looks at all)."""
    row = view.db.execute("SELECT state, failures, seq FROM selfcheck WHERE id = 1").fetchone()
    if row is None:
        return ["the self-check status row is missing"]
    state, failures, seq = row
    entry = view.db.execute(
        f"SELECT kind, data FROM journal WHERE seq = ? AND kind IN {_SELFCHECK_KINDS}", (seq,)
    ).fetchone()
    start = seq if recent is None else max(seq, view.journal.head()[0] - recent)
    later = view.db.execute(
        f"SELECT seq, kind FROM journal WHERE seq > ? AND kind IN {_SELFCHECK_KINDS} "
        "ORDER BY seq LIMIT 1",
        (start,),
    ).fetchone()
    if entry is None:
        return [f"the self-check status row points to entry {seq}, which did not set it"]
    if later is not None:
        return [
            f"the self-check status row is older than entry {later[0]} ({later[1]}) that "
            "changed the status later (a failed self-check hidden?)"
        ]
    kind, data = entry
    wanted = SelfCheckState.FAILED if kind == "selfcheck.failed" else SelfCheckState.OK
    if state != wanted:
        return [f"the self-check status row says {state} but entry {seq} ({kind}) set {wanted}"]
    if wanted == SelfCheckState.FAILED and json.loads(failures) != json.loads(data).get("failures"):
        return [f"the self-check failures differ from entry {seq}"]
    return []


def key_history_problems(view: LedgerView) -> list[str]:
    """The key history in ``meta`` against the entries that started each key."""
    journal = [
        (seq, key_id)
        for seq, key_id in view.db.execute(
            f"SELECT seq, json_extract(data, '$.key') FROM journal WHERE kind IN {KEY_KINDS} "
            "ORDER BY seq"
        )
        if key_id is not None
    ]
    problems = []
    if journal != key_history(view.db):
        problems.append(
            f"the ledger key history in meta {key_history(view.db)} differs from the journal's "
            f"{journal}"
        )
    if view.db.keyring is not None and not journal:
        problems.append(
            "the ledger is not keyed although a keyring was given: anyone with the source can "
            "re-seal its rows (adopt the key: croupier ledger-key adopt)"
        )
    return problems


def cross_check_problems(view: LedgerView) -> list[str]:
    problems = []
    for what, sql in CROSS_CHECKS:
        count = view.db.execute(sql).fetchone()[0]
        if count:
            problems.append(f"{abs(count)} {what}")
    return problems


class Replay:
    """The pools as the journal says they must be (see the module docstring)."""

    def __init__(self) -> None:
        self.pools: dict[str, tuple[PoolConfig, PoolState]] = {}
        self.open: dict[str, dict[str, tuple[Contribution, dict[int, int]]]] = {}
        # linked pools (CH-9 across the link): the table of each open round, and the shares
        # hits at other tables fixed for it (round -> pool -> seat -> share)
        self.tables: dict[str, str] = {}
        self.fixed: dict[str, dict[str, dict[int, int]]] = {}
        self.shown: dict[str, int] = {}  # last amount displayed, as recorded
        self.retired: dict[str, int] = {}  # pool -> the entry that retired it
        self.hits = 0
        self.problems: list[str] = []
        # round rows and hit rows as the journal makes them (when entries are given)
        self.round_rows: dict[str, dict[str, Any]] = {}
        self.hit_rows: list[dict[str, Any]] = []
        self._entry: Entry | None = None

    def apply(self, seq: int, kind: str, data: dict[str, Any], entry: Entry | None = None) -> None:
        """Apply one money entry; with ``entry`` the round and hit rows are rebuilt too."""
        self._entry = entry
        try:
            getattr(self, "_" + kind.replace(".", "_"))(seq, data)
        except (PoolArithmeticError, KeyError, TypeError, ValueError) as exc:
            self.problems.append(f"entry {seq} ({kind}) cannot be replayed: {exc}")

    def _compare(self, seq: int, what: str, recorded: Any, recomputed: Any) -> None:
        if recorded != recomputed:
            self.problems.append(
                f"entry {seq}: {what} recorded {recorded} but recomputed {recomputed}"
            )

    def _shown(self, seq: int, pool: str, current: int, may_fall: bool) -> None:
        """Track the displayed amount as recorded; it may fall only where ``may_fall``."""
        before = self.shown.get(pool)
        if before is not None and current < before and not may_fall:
            self.problems.append(
                f"entry {seq}: pool {pool} displayed amount fell from {before} to {current} "
                "without a win, a void or a correction"
            )
        self.shown[pool] = current

    def _pool_created(self, seq: int, data: dict[str, Any]) -> None:
        config = PoolConfig.from_json(data["config"])
        if config.name in self.pools:
            self.problems.append(f"entry {seq}: pool {config.name} created twice")
        state = new_pool(config)
        self.pools[config.name] = (config, state)
        self.shown[config.name] = state.current

    def _pool_configured(self, seq: int, data: dict[str, Any]) -> None:
        name = data["pool"]
        _, state = self.pools[name]
        config = PoolConfig.from_json(data["config"])
        busy = sorted(rid for rid, pools in self.open.items() if name in pools)
        if busy:
            self.problems.append(
                f"entry {seq}: pool {name} parameters changed while round {busy[0]} was open"
            )
        if config.cap is not None and config.cap < state.current:
            self.problems.append(
                f"entry {seq}: pool {name} cap set to {config.cap}, below {state.current}"
            )
        self.pools[name] = (config, state)

    def _round_opened(self, seq: int, data: dict[str, Any]) -> None:
        rid, recorded = data["round"], data["pools"]
        if rid in self.open:
            self.problems.append(f"entry {seq}: round {rid} opened twice")
        fed = {}
        for name, (config, state) in sorted(self.pools.items()):
            if name in self.retired:
                continue
            seats = {int(s): w[config.bet] for s, w in data["stakes"].items() if config.bet in w}
            if not seats:
                continue
            after, c = contribute(state, config, sum(seats.values()))
            self.pools[name] = (config, after)
            fed[name] = (c, seats)
            self._compare(
                seq,
                f"round {rid} pool {name} contribution",
                recorded.get(name),
                {**c.to_json(), "current": after.current},
            )
            self._shown(seq, name, recorded.get(name, {}).get("current", after.current), False)
        self._compare(seq, f"round {rid} pools fed", sorted(recorded), sorted(fed))
        self.open[rid] = fed
        if "table" in data:
            self.tables[rid] = data["table"]
        if self._entry is not None:
            staked = sum(sum(w.values()) for w in data["stakes"].values())
            self.round_rows[rid] = {
                "state": rounds.RoundState.OPEN.value,
                "stakes": canonical(data["stakes"]),
                "staked": staked,
                "opened_mono": self._entry.mono,
                "opened_wall": self._entry.wall,
                "open_seq": seq,
                "closed_mono": None,
                "closed_wall": None,
                "close_seq": None,
                "rule": None,
                "cause": None,
                "paid": None,
                "paid_total": None,
            }

    def _closed_row(
        self, rid: str, state: rounds.RoundState, paid: dict[str, Any], **more: Any
    ) -> None:
        row = self.round_rows.get(rid)
        if self._entry is None or row is None:
            return
        row.update(
            state=state.value,
            closed_mono=self._entry.mono,
            closed_wall=self._entry.wall,
            close_seq=self._entry.seq,
            paid=canonical(paid),
            paid_total=sum(sum(w.values()) for w in paid.values()),
            **more,
        )

    def _closing(self, seq: int, rid: str) -> dict[str, tuple[Contribution, dict[int, int]]]:
        if rid not in self.open:
            self.problems.append(f"entry {seq}: round {rid} closed but it is not open")
            return {}
        self.tables.pop(rid, None)
        return self.open.pop(rid)

    def _link_shares(
        self, rid: str, table: str | None, name: str, config: PoolConfig
    ) -> rounds.LinkShares:
        """CH-9 across the link for round ``rid`` of ``table`` on linked pool ``name`` (after
        _closing): the other tables' open rounds' stakes, and what earlier hits fixed for it."""
        received = self.fixed.get(rid, {}).pop(name, {})
        rules = config.rules
        if table is None or rules.award != "share-round" or rules.share_scope != "link":
            return rounds.LinkShares(received=received)
        others = {
            (t, key[len(t) + 1 :], seat): stake
            for key, pools in self.open.items()
            if name in pools and (t := self.tables.get(key)) is not None and t != table
            for seat, stake in pools[name][1].items()
        }
        return rounds.LinkShares(others, received)

    def _round_voided(self, seq: int, data: dict[str, Any]) -> None:
        rid = data["round"]
        closing = self._closing(seq, rid)
        fixed = self.fixed.pop(rid, {})
        for name, (c, _) in closing.items():
            config, state = self.pools[name]
            move = rounds.reversals([(config, state, c)], fixed)[name]
            self.pools[name] = (config, move.after)
            recorded = data["pools"].get(name)
            self._compare(seq, f"round {rid} pool {name} reversal", recorded, move.to_json())
            self._shown(seq, name, (recorded or {}).get("current", move.after.current), True)
        if self._entry is not None and rid in self.round_rows:
            self._voided_rows(seq, rid, data)

    def _voided_rows(self, seq: int, rid: str, data: dict[str, Any]) -> None:
        """The round row a void makes: every stake returned, the opening's and those placed
        during the round (``added``; a journal before them, and a void at start-up recovery,
        ``opening_only``, have none)."""
        opened = _seats(json.loads(self.round_rows[rid]["stakes"]))
        every = rounds.merged(opened, _seats(data.get("added") or {}))
        self._compare(seq, f"round {rid} stakes returned", data["returned"], stakes_to_json(every))
        self.round_rows[rid].update(rounds.with_stakes({}, every))
        self._closed_row(
            rid, rounds.RoundState.VOIDED, data["returned"], rule=data["rule"], cause=data["cause"]
        )

    def _round_settled(self, seq: int, data: dict[str, Any]) -> None:
        rid = data["round"]
        moves: dict[str, rounds.PoolMove] = {}
        table = self.tables.get(rid)
        for name, (_, seats) in self._closing(seq, rid).items():
            config, state = self.pools[name]
            lines = data["hits"].get(name, {})
            link = self._link_shares(rid, table, name, config)
            outcome = resolve(
                state,
                config,
                {s: lines.get(str(s)) for s in seats},
                seats,
                link.others,
                link.received,
            )
            for (at, other, seat), share in outcome.link_shares.items():
                owed = self.fixed.setdefault(rounds.round_key(at, other), {}).setdefault(name, {})
                owed[seat] = owed.get(seat, 0) + share
            after = award(state, config, outcome)
            self.pools[name] = (config, after)
            recorded = data["pools"].get(name)
            self._compare(
                seq,
                f"round {rid} pool {name} awards",
                recorded,
                {**outcome_to_json(outcome), "current": after.current},
            )
            won = outcome.jackpot_paid > 0
            self._shown(seq, name, (recorded or {}).get("current", after.current), won)
            self.hits += sum(1 for a in outcome.awards.values() if a.amount or a.share or a.envy)
            moves[name] = rounds.PoolMove(config, after, outcome, seats)
        self.fixed.pop(rid, None)  # every share fixed for it is paid now
        if self._entry is not None and rid in self.round_rows:
            self._settled_rows(rid, data, moves, self._entry)

    def _settled_rows(
        self, rid: str, data: dict[str, Any], moves: dict[str, rounds.PoolMove], entry: Entry
    ) -> None:
        """The round row and hit rows a settlement makes, with the ledger's own functions."""
        opened = _seats(json.loads(self.round_rows[rid]["stakes"]))
        every = rounds.merged(opened, _seats(data["added"]))
        paid = rounds.payouts(rid, every, _seats(data["payouts"]), moves)
        self.round_rows[rid].update(rounds.with_stakes({}, every))
        self._closed_row(rid, rounds.RoundState.SETTLED, stakes_to_json(paid))
        hands = {int(s): h for s, h in data["hands"].items()}
        for move in moves.values():
            self.hit_rows += rounds.hit_rows(0, rid, move, hands, entry)

    def _meter_corrected(self, seq: int, data: dict[str, Any]) -> None:
        name, meter = data["pool"], data["meter"]
        config, state = self.pools[name]
        self._compare(
            seq, f"pool {name} {meter} before the correction", data["old"], getattr(state, meter)
        )
        after = correct(state, config, meter, data["new"])
        self.pools[name] = (config, after)
        self._shown(seq, name, after.current, True)

    def _pool_retired(self, seq: int, data: dict[str, Any]) -> None:
        name, to = data["pool"], data["to"]
        config, state = self.pools[name]
        if name in self.retired or to in self.retired:
            self.problems.append(f"entry {seq}: pool {name} or {to} was already retired")
        self._compare(seq, f"pool {name} amount retired", data["amount"], state.current)
        self._compare(seq, f"pool {name} reserve retired", data["reserve"], state.reserve)
        emptied = correct(correct(state, config, "current", 0), config, "reserve", 0)
        self.pools[name] = (config, emptied)
        self._shown(seq, name, 0, True)
        if to is not None:
            to_config, to_state = self.pools[to]
            moved = correct(to_state, to_config, "current", to_state.current + data["amount"])
            moved = correct(moved, to_config, "reserve", to_state.reserve + data["reserve"])
            self.pools[to] = (to_config, moved)
            self._shown(seq, to, moved.current, False)
        self.retired[name] = seq


def _seats(stakes: dict[str, Any]) -> dict[int, dict[str, int]]:
    """Stakes as a journal entry holds them (seat keys as text), by seat number."""
    return {int(s): dict(w) for s, w in stakes.items()}


def pool_differences(
    stored: dict[str, tuple[PoolConfig, PoolState]],
    replayed: dict[str, tuple[PoolConfig, PoolState]],
) -> list[str]:
    """Every difference between the stored pools and the pools the journal replays to."""
    problems = []
    for name in sorted(set(stored) | set(replayed)):
        if name not in stored or name not in replayed:
            where = "the journal" if name not in stored else "the pools table"
            problems.append(f"pool {name} is missing from {where}")
            continue
        (config, state), (j_config, j_state) = stored[name], replayed[name]
        if config != j_config:
            problems.append(f"pool {name}: its configuration differs from the journal's")
        table, journal = state.to_row(), j_state.to_row()
        problems.extend(
            f"pool {name}: {meter} is {table[meter]} in the pools table but {journal[meter]} "
            "from the journal"
            for meter in table
            if table[meter] != journal[meter]
        )
    return problems


def replay_journal(
    view: LedgerView, progress: Progress | None = None, *, rows: bool = False
) -> Replay:
    """Apply the journal's money entries in order (see the module docstring); ``rows``:
    rebuild the round and hit rows too (verify's check 7)."""
    replay = Replay()
    for entry in counted(view.journal.entries(kinds=MONEY_KINDS), progress):
        replay.apply(entry.seq, entry.kind, entry.data, entry if rows else None)
    return replay


_ROUND_COLUMNS = SEALED["rounds"][1]
_HIT_COLUMNS = tuple(c for c in SEALED["hits"][1])


def round_row_problems(view: LedgerView, replay: Replay) -> list[str]:
    """Every round row and hit row against what the journal makes it (check 7)."""
    items = []
    stored = view.db.execute(f"SELECT round_id, {', '.join(_ROUND_COLUMNS)} FROM rounds")
    seen = set()
    for rid, *values in stored:
        seen.add(rid)
        expected = replay.round_rows.get(rid)
        if expected is None:
            items.append(f"round {rid} has a row but no round.opened entry")
            continue
        items += [
            f"round {rid}: {column} is {value!r} in the rounds table but {expected[column]!r} "
            "from the journal"
            for column, value in zip(_ROUND_COLUMNS, values, strict=True)
            if value != expected[column]
        ]
    items += [
        f"round {rid} is in the journal but has no row"
        for rid in replay.round_rows
        if rid not in seen
    ]
    hits = [tuple(r) for r in view.db.execute(f"SELECT {', '.join(_HIT_COLUMNS)} FROM hits")]
    wanted = [tuple(r[c] for c in _HIT_COLUMNS) for r in replay.hit_rows]
    if sorted(hits, key=repr) != sorted(wanted, key=repr):
        extra = [h for h in hits if h not in wanted][:3]
        missing = [h for h in wanted if h not in hits][:3]
        items.append(
            f"the hit history differs from the journal's awards: rows {extra} are not what "
            f"the journal makes, rows {missing} are missing"
        )
    problems: list[str] = []
    _listed(problems, items, "round or hit rows that differ from the journal")
    return problems


def replay_problems(view: LedgerView, progress: Progress | None = None) -> tuple[list[str], Replay]:
    """The replay's own problems, then every difference between it and the tables."""
    replay = replay_journal(view, progress, rows=True)
    problems = list(replay.problems)
    problems += pool_differences(view.pools(), replay.pools)
    open_rows = set(view.open_round_ids())
    if open_rows != set(replay.open):
        problems.append(
            f"open rounds differ: table {sorted(open_rows)[:5]}, journal {sorted(replay.open)[:5]}"
        )
    if retired_pools(view.db) != replay.retired:
        problems.append(
            f"the retired pools {sorted(retired_pools(view.db))} differ from the "
            f"journal's {sorted(replay.retired)}"
        )
    hit_rows = view.db.execute("SELECT count(*) FROM hits").fetchone()[0]
    if hit_rows != replay.hits:
        problems.append(f"{hit_rows} hit rows but the journal's awards make {replay.hits}")
    return problems, replay


def verify_ledger(view: LedgerView, progress: Progress | None = None) -> Report:
    """Every invariant; ``progress`` is told of the journal entries walked (the chain, then
    the money entries replayed). A database file too damaged to read raises
    LedgerCorruptError (one line naming the file), never a bare SQLite error."""
    with view.db.reading("verifying the ledger"):
        return _verify(view, progress)


def _verify(view: LedgerView, progress: Progress | None) -> Report:
    report = Report()
    quick = [r[0] for r in view.db.execute("PRAGMA quick_check")]
    if quick != ["ok"]:
        _listed(report.problems, [f"SQLite: {q}" for q in quick], "SQLite problems")
    if view.db.unverifiable:
        report.problems.append(view.db.unverifiable)
    else:
        report.problems += sealed_row_problems(view)
    report.problems += key_history_problems(view)
    report.problems += rules_problems(view.journal, view.db)
    report.problems += selfcheck_row_problems(view)
    report.problems += pool_problems(view)
    chain = verify_chain(view.journal, progress)
    report.problems += [f"journal: {p}" for p in chain.problems]
    report.problems += cross_check_problems(view)
    report.stats.update(entries=chain.entries, rounds=view.round_counts())
    if any(p.startswith("journal:") and "trigger" not in p for p in report.problems):
        report.problems.append("the replay of the journal was skipped: the journal is broken")
        return report
    problems, replay = replay_problems(view, progress)
    report.problems += problems
    report.problems += round_row_problems(view, replay)
    report.stats.update(pools={n: s.current for n, (_, s) in replay.pools.items()})
    return report
