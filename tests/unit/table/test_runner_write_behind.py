"""Journal-only transactions are not waited for (controller/table/runner.py, _write_behind):
the table goes on at once, the entries still land in the journal in the order the core gave
them (money commits in between included), a failed one still closes the table, and close()
loses none of them."""

import asyncio
import json
import sqlite3
import threading
import tomllib

from controller.table.events import (
    AppendJournal,
    Button,
    Condition,
    ConditionChanged,
    DealerPressed,
    DeclareSeats,
    LedgerWrite,
    StakeSensed,
)
from controller.table.runner import TableRunner
from controller.table.tableconfig import parse_table_config

CONFIG = tomllib.loads("""
[table]
id = "T8"
profile = "uth-gr"
[shuffler]
emulate = true
[pools.main]
seed = 500000
""")


class HeldShuffler:
    def submit(self, effect, round_id=None):
        pass


def _journal(path):
    db = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    try:
        return [
            (kind, json.loads(data))
            for kind, data in db.execute("SELECT kind, data FROM journal ORDER BY seq")
        ]
    finally:
        db.close()


def test_notes_and_money_commit_in_order_and_close_loses_none(tmp_path):
    config = parse_table_config(CONFIG, "t.toml")

    async def go():
        runner = TableRunner(config, state_dir=tmp_path)
        await runner.open()
        runner.shuffler = HeldShuffler()
        held = threading.Event()  # the ledger's thread is busy: every write queues behind
        runner.ledger_thread.submit(held.wait, 10)
        for n in range(5):
            await runner._carry_out(LedgerWrite((AppendJournal("test.note", {"n": n}),)))
        assert len(runner._later) == 5 and not runner._behind  # they wait for an idle table
        runner._run_later()
        assert len(runner._behind) == 5  # on the ledger's thread now, the loop not held
        held.set()
        await runner.handle(ConditionChanged(Condition.STARTUP, False))
        await runner.idle()
        while not runner.queue.empty():
            await runner.handle(runner.queue.get_nowait())
        await runner.handle(StakeSensed(1, True))
        await runner.handle(DeclareSeats((1,)))
        await runner.handle(DealerPressed(Button.LOCK))  # a money write (OpenRound): waited for
        assert runner.machine.state.value == "locked"
        held_again = threading.Event()
        runner.ledger_thread.submit(held_again.wait, 10)
        for n in range(5, 8):
            await runner._carry_out(LedgerWrite((AppendJournal("test.note", {"n": n}),)))
        threading.Timer(0.1, held_again.set).start()
        await runner.close()  # the queued notes are committed before the ledger closes

    asyncio.run(go())
    entries = _journal(config.resolve_state(tmp_path))
    notes = [data["n"] for kind, data in entries if kind == "test.note"]
    assert notes == list(range(8))
    kinds = [kind for kind, _ in entries]
    opened = kinds.index("round.opened")
    assert kinds.index("test.note") < opened < len(kinds) - 1 - kinds[::-1].index("test.note")


def test_a_journal_write_that_fails_closes_the_table(tmp_path):
    config = parse_table_config(CONFIG, "t.toml")

    async def go():
        runner = TableRunner(config, state_dir=tmp_path)
        await runner.open()
        runner.shuffler = HeldShuffler()
        await runner.handle(ConditionChanged(Condition.STARTUP, False))
        await runner.idle()
        while not runner.queue.empty():
            await runner.handle(runner.queue.get_nowait())
        assert runner.machine.state.value == "open"
        bad = LedgerWrite((AppendJournal("test.note", {"not json": {1, 2}}),))
        await runner._carry_out(bad)  # returns at once; the answer comes as an event
        await runner.idle()
        while not runner.queue.empty():
            await runner.handle(runner.queue.get_nowait())
        state, conditions = runner.machine.state.value, dict(runner.machine.conditions)
        await runner.close()
        return state, conditions

    state, conditions = asyncio.run(go())
    assert state == "closed"
    assert Condition.INTERNAL in conditions or Condition.LEDGER in conditions


def test_a_read_of_the_ledger_sees_the_entries_still_waiting(tmp_path):
    async def go():
        runner = TableRunner(parse_table_config(CONFIG, "t.toml"), state_dir=tmp_path)
        await runner.open()
        runner.shuffler = HeldShuffler()
        await runner._carry_out(LedgerWrite((AppendJournal("test.note", {"n": 1}),)))
        waiting = len(runner._later)
        last = await runner.in_ledger(lambda: runner.ledger.journal.tail(1))
        await runner.close()
        return waiting, [(e.kind, e.data) for e in last]

    waiting, last = asyncio.run(go())
    assert waiting == 1
    assert last == [("test.note", {"n": 1})]
