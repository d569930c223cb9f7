"""The soak: three table processes on one linked pool, against a real PostgreSQL server.

On the way: concurrent rounds on every table; a table SIGKILLed inside an opening's
transaction (before COMMIT) and, in its next life, just after COMMIT but before it heard of
it; a jackpot hit on two tables at the same moment; the server stopped and started while
every table plays. At the end:

- ``croupier pool verify``'s checks pass (hash chain, the journal replayed to the pool meter
  for meter, every table's totals recomputed from its journal entries);
- every round each table logged as taken is in the store exactly as logged; every round it
  played while the link was down is absent; every opening in doubt was abandoned or voided;
  the opening killed after COMMIT was voided by the next life (MD-S2); the one killed before
  COMMIT never counted; no round is left open;
- the pool equals seed + contributions - awards + the shares voided rounds gave back (CH-9),
  summed from every table's entries of the journal, and each table's own log agrees with its
  entries (the rounds it settled, their contributions and awards);
- the two simultaneous jackpots were both paid, one after the other: the second on the seed
  plus what was contributed between them.
"""

import json
import signal
import subprocess
import sys
import time
from collections import Counter, defaultdict
from pathlib import Path

import psycopg
import pytest
from pg import SEED, create_pool, dsn_with, fresh_database, start_server

from controller.books.linked.verify import verify_store

DRIVER = Path(__file__).with_name("table_driver.py")
JACKPOT_AT = 25
LIMIT = 60  # seconds any phase may take before the soak is declared stuck


@pytest.fixture
def soak(tmp_path):
    server = start_server()
    dsn = dsn_with(server.dsn, fresh_database(server.dsn))
    create_pool(dsn)
    run = Soak(server, dsn, tmp_path)
    yield run
    run.kill_all()
    server.destroy()


class Soak:
    def __init__(self, server, dsn, root):
        self.server, self.dsn, self.root = server, dsn, root
        self.stop_file = root / "stop"
        self.barrier = root / "barrier"
        self.barrier.mkdir()
        self.procs = {}

    def log(self, table):
        return self.root / f"{table}.log"

    def start(self, table, life, *extra):
        args = [
            sys.executable,
            str(DRIVER),
            self.dsn,
            table,
            str(self.log(table)),
            "--life",
            str(life),
            "--seed",
            str(ord(table[0])),
            "--stop-file",
            str(self.stop_file),
            *extra,
        ]
        self.procs[table] = subprocess.Popen(args, stdout=subprocess.PIPE, text=True)

    def events(self, table):
        path = self.log(table)
        if not path.exists():
            return []
        return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]

    def count(self, table, event):
        return sum(1 for e in self.events(table) if e["event"] == event)

    def wait(self, what, condition):
        deadline = time.monotonic() + LIMIT
        while not condition():
            for table, proc in self.procs.items():
                assert proc.poll() in (None, 0, -signal.SIGKILL), f"table {table} crashed"
            assert time.monotonic() < deadline, f"the soak is stuck waiting for {what}"
            time.sleep(0.01)

    def kill_when_paused(self, table):
        proc = self.procs[table]
        assert proc.stdout.readline().strip() == "PAUSED"
        proc.send_signal(signal.SIGKILL)
        proc.wait(LIMIT)

    def finish(self):
        self.stop_file.touch()
        for table, proc in self.procs.items():
            assert proc.wait(LIMIT) == 0, f"table {table} failed"

    def kill_all(self):
        for proc in self.procs.values():
            if proc.poll() is None:
                proc.kill()
                proc.wait()


def test_three_tables_a_killed_table_two_jackpots_and_a_server_restart(soak):
    tables = ("A", "B", "C")
    jackpot = ("--jackpot-at", str(JACKPOT_AT), "--barrier", str(soak.barrier))
    soak.start("A", 1, *jackpot)
    soak.start("B", 1, *jackpot)
    soak.start("C", 1, "--pause-at", "12", "--pause-when", "before-commit")
    soak.kill_when_paused("C")
    soak.start("C", 2, "--pause-at", "8", "--pause-when", "after-commit")
    soak.wait(
        "both jackpot tables",
        lambda: all((soak.barrier / f"ready-{t}").exists() for t in ("A", "B")),
    )
    (soak.barrier / "go").touch()
    soak.kill_when_paused("C")
    soak.start("C", 3)
    soak.wait(
        "40 rounds on every table", lambda: all(soak.count(t, "opened") >= 40 for t in tables)
    )
    before = {t: soak.count(t, "opened") for t in tables}
    soak.server.stop()
    soak.wait(
        "every table to play without the link",
        lambda: all(soak.count(t, "refused") >= 3 for t in tables),
    )
    soak.server.start()
    soak.wait(
        "20 more rounds on every table after the restart",
        lambda: all(soak.count(t, "opened") >= before[t] + 20 for t in tables),
    )
    soak.finish()

    report = verify_store(soak.dsn)
    assert report.problems == []
    check_every_table_against_the_store(soak, tables)


def store_rounds(dsn):
    with psycopg.connect(dsn) as conn:
        rows = conn.execute(
            "SELECT table_id, round_id, state, contribution, outcome, rule FROM croupier.rounds"
        ).fetchall()
        entries = [
            (seq, kind, json.loads(data))
            for seq, kind, data in conn.execute(
                "SELECT seq, kind, data FROM croupier.journal ORDER BY seq"
            )
        ]
        current = conn.execute("SELECT current FROM croupier.pools").fetchone()[0]
    rounds = {
        (t, r): (state, json.loads(c or "null"), json.loads(o or "null"), rule)
        for t, r, state, c, o, rule in rows
    }
    return rounds, entries, current


def shares_given_back(voided):
    """What a voided round's entry gave back to the displayed amount: the shares of another
    table's hit fixed for it, which it will never pay (CH-9, share_scope = "link")."""
    return voided.get("shares_returned", {}).get("to_current", 0)


def check_every_table_against_the_store(soak, tables):
    rounds, entries, current = store_rounds(soak.dsn)
    assert Counter(state for state, *_ in rounds.values())["open"] == 0

    # the pool from every table's entries of the journal, summed independently
    net = defaultdict(int)  # contributions - reversals, by table
    won = defaultdict(int)
    given_back = defaultdict(int)  # CH-9: shares a hit fixed for a round voided before it paid
    contributed = defaultdict(int)  # by the rounds that were settled, by table
    resets = 0
    for _, kind, data in entries:
        moved = data.get("pools", {}).get("jumbo7")
        if kind == "round.opened":
            net[data["table"]] += moved["to_current"]
            table, rid = data["round"].split("/")
            if rounds[(table, rid)][0] == "settled":
                contributed[table] += moved["to_current"]
        elif kind == "round.voided":
            net[data["table"]] -= moved["from_current"]
            given_back[data["table"]] += shares_given_back(moved)
        elif kind == "round.settled":
            won[data["table"]] += moved["jackpot_paid"]
            resets += moved["resets"]
    assert current == (
        SEED * (1 + resets) + sum(net.values()) - sum(won.values()) + sum(given_back.values())
    )
    assert resets >= 2  # the two simultaneous jackpots at least

    for table in tables:
        events = soak.events(table)
        logged = defaultdict(list)
        for e in events:
            if "round" in e:
                logged[e["event"]].append(e)
        mine = {r: v for (t, r), v in rounds.items() if t == table}
        for e in logged["opened"]:
            state, contribution, _, _ = mine[e["round"]]
            assert contribution["to_current"] == e["to_current"]
            assert state in ("settled", "voided")
        for e in logged["settled"]:
            state, _, outcome, _ = mine[e["round"]]
            assert state == "settled" and outcome["jackpot_paid"] == e["jackpot_paid"]
        for e in logged["voided"] + logged["void-owed"]:
            assert mine[e["round"]][0] == "voided"
        for e in logged["refused"]:
            assert e["round"] not in mine, f"{table} {e['round']} was counted while down"
        for e in logged["in-doubt"]:
            assert mine.get(e["round"], ("abandoned",))[0] in ("abandoned", "voided")
        acknowledged = {e["round"] for e in logged["opened"]}
        for rid, (state, *_) in mine.items():
            if rid not in acknowledged:  # never heard of by the table: must not count
                assert state in ("voided", "abandoned"), (table, rid, state)
        # the table's own record agrees with its entries of the journal: the same rounds
        # settled, with the same contributions
        voided = {e["round"] for e in logged["voided"] + logged["void-owed"]}
        kept = {e["round"]: e["to_current"] for e in logged["opened"] if e["round"] not in voided}
        settled = {rid for rid, (state, *_) in mine.items() if state == "settled"}
        assert set(kept) == settled
        assert sum(kept.values()) == contributed[table]
        assert sum(e["jackpot_paid"] for e in logged["settled"]) == won[table]

    # C's first life died inside the opening's transaction: it never counted
    assert ("C", "L1-12") not in rounds
    # C's second life died after COMMIT: its third life voided it at the first join (MD-S2)
    assert rounds[("C", "L2-8")][0] == "voided" and rounds[("C", "L2-8")][3] == "MD-S2"
    assert any(e["round"] == "L2-8" for e in soak.events("C") if e["event"] == "recovered")

    # the simultaneous jackpots: both paid, in the order of the pool's journal
    hits = sorted(
        (seq, data)
        for seq, kind, data in entries
        if kind == "round.settled"
        and data["pools"]["jumbo7"]["resets"]
        and data["round"].endswith(f"L1-{JACKPOT_AT}")
    )
    assert [d["table"] for _, d in hits] in (["A", "B"], ["B", "A"])
    (first_seq, first), (second_seq, second) = hits
    between = sum(
        d["pools"]["jumbo7"]["to_current"]
        if k == "round.opened"
        else shares_given_back(d["pools"]["jumbo7"]) - d["pools"]["jumbo7"]["from_current"]
        for s, k, d in entries
        if first_seq < s < second_seq and k in ("round.opened", "round.voided")
    )
    assert second["pools"]["jumbo7"]["pool_before"] == SEED + between
    assert second["pools"]["jumbo7"]["jackpot_paid"] == SEED + between
