"""The runner's ledger handshake: a full disk at LOCK takes nothing and closes the table; the
transition and the money event of one event commit together or not at all (issue 7)."""

import asyncio
import contextlib

from runner_support import open_runner

from controller.books.ledger.errors import LedgerFullError
from controller.table.events import (
    Button,
    Condition,
    ConditionChanged,
    DealerPressed,
    DeclareSeats,
    StakeSensed,
)


async def drain(runner):
    await runner.idle()  # the journal writes under way answer too
    while not runner.queue.empty():
        await runner.handle(runner.queue.get_nowait())
        await runner.idle()


def test_disk_full_at_lock_takes_nothing_and_closes(tmp_path):
    async def go():
        runner = await open_runner(tmp_path)
        await runner.handle(ConditionChanged(Condition.STARTUP, False))
        await drain(runner)
        assert runner.machine.state.value == "open"
        await runner.handle(StakeSensed(1, True))
        await runner.handle(DeclareSeats((1,)))
        await drain(runner)

        def fill():  # the disk fills up: no page may be added any more
            ledger = runner.ledger
            pages = ledger.db.execute("PRAGMA page_count").fetchone()[0]
            ledger.db.execute(f"PRAGMA max_page_count = {pages + 4}")
            for size in (2000, 200, 20, 1):  # big entries, then smaller ones fill the gaps
                with contextlib.suppress(LedgerFullError):
                    while True:
                        with ledger.transaction():
                            ledger.journal.append("padding", {"pad": "x" * size}, 0.0)

        await runner.in_ledger(fill)
        await runner.handle(DealerPressed(Button.LOCK))
        await drain(runner)
        machine = runner.machine
        assert machine.state.value == "closed"
        assert "ledger" in machine.conditions and machine.round is None
        assert runner.shuffler.submitted == []  # nothing was dealt

        def rounds():
            runner.ledger.db.execute("PRAGMA max_page_count = 1073741823")
            count = runner.ledger.db.execute("SELECT count(*) FROM rounds").fetchone()[0]
            opened = runner.ledger.db.execute(
                "SELECT count(*) FROM journal WHERE kind = 'round.opened'"
            ).fetchone()[0]
            return count, opened

        assert await runner.in_ledger(rounds) == (0, 0)  # nothing half-written
        await runner.handle(ConditionChanged(Condition.LEDGER, False))
        await drain(runner)
        assert machine.state.value == "open"
        await runner.handle(DealerPressed(Button.LOCK))
        await drain(runner)
        assert machine.state.value == "dealing"
        assert [type(e).__name__ for e in runner.shuffler.submitted] == [
            "ShuffleDeck",
            "RequestPacket",
        ]
        await runner.close()

    asyncio.run(go())
