"""The runner's event loop (controller/table/runner.py, TableRunner.run and take): events
waiting in the queue are taken without a task or a wait each, in order, and the event loop
still gets a turn every BURST events; ``take`` returns once the core has taken its event,
also when handling it failed."""

import asyncio
import itertools

from runner_support import open_runner, start_loop, stop_loop

from controller.table.events import Condition, ConditionChanged, JournalNote
from controller.table.runner import BURST, Handover


async def _running(runner):
    """The loop started, the table open (run() posts STARTUP cleared too)."""
    stop, task = await start_loop(runner)
    await runner.take(ConditionChanged(Condition.STARTUP, False))
    return stop, task


def test_take_returns_with_the_event_taken(tmp_path):
    async def go():
        runner = await open_runner(tmp_path)
        stop, task = await _running(runner)
        try:
            assert runner.machine.state.value == "open"
            handed = await runner.take(ConditionChanged(Condition.SHUFFLER, True, "door open"))
            assert handed is Handover.TAKEN
            closed = runner.machine.state.value  # no turn of the loop in between
            await runner.take(ConditionChanged(Condition.SHUFFLER, False))
            return closed, runner.machine.state.value
        finally:
            await stop_loop(runner, stop, task)

    assert asyncio.run(go()) == ("closed", "open")


def test_take_returns_when_the_event_fails(tmp_path):
    async def go():
        runner = await open_runner(tmp_path)
        stop, task = await _running(runner)
        try:
            original = runner.logic.handle

            def failing(event, now):
                if isinstance(event, JournalNote) and event.kind == "test.boom":
                    raise RuntimeError("boom")
                return original(event, now)

            runner.logic.handle = failing
            await asyncio.wait_for(runner.take(JournalNote("test.boom", {})), 5)
            await runner.take(JournalNote("test.after", {}))  # the table took the next one
            return runner.machine.state.value, dict(runner.machine.conditions)
        finally:
            await stop_loop(runner, stop, task)

    state, conditions = asyncio.run(go())
    assert state == "closed" and Condition.INTERNAL in conditions  # fail safe, as before


def test_queued_events_are_taken_in_order_with_turns_for_the_loop(tmp_path):
    async def go():
        runner = await open_runner(tmp_path)
        stop, task = await _running(runner)
        handled: list[int] = []
        turns: list[int] = []  # how many events were handled when the loop had a turn
        original = runner.handle

        async def counting(event):
            await original(event)
            if isinstance(event, JournalNote) and event.kind == "test.n":
                handled.append(event.data["n"])

        def turn():
            turns.append(len(handled))
            if len(handled) < 3 * BURST:
                asyncio.get_running_loop().call_soon(turn)

        runner.handle = counting
        try:
            for n in range(3 * BURST):
                runner.post(JournalNote("test.n", {"n": n}))
            asyncio.get_running_loop().call_soon(turn)
            await runner.take(JournalNote("test.last", {}))
        finally:
            await stop_loop(runner, stop, task)
        return handled, turns

    handled, turns = asyncio.run(go())
    assert handled == list(range(3 * BURST))
    # the loop had turns while the burst was handled: never more than BURST events in a row
    assert all(b - a <= BURST for a, b in itertools.pairwise(turns))
    assert turns[0] < 3 * BURST


def test_take_lets_the_caller_go_when_the_table_stays_busy(tmp_path, monkeypatch):
    monkeypatch.setattr("controller.table.runner.TAKE_WAIT", 0.05)

    async def go():
        runner = await open_runner(tmp_path)
        stop, task = await _running(runner)
        release = asyncio.Event()
        handled: list[str] = []
        original = runner.handle

        async def busy(event):  # a money write stuck on a linked store, say
            if isinstance(event, JournalNote) and event.kind == "test.busy":
                await release.wait()
            await original(event)
            if isinstance(event, JournalNote):
                handled.append(event.kind)

        runner.handle = busy
        try:
            runner.post(JournalNote("test.busy", {}))
            handed = await asyncio.wait_for(runner.take(JournalNote("test.queued", {})), 5)
            assert handed is Handover.QUEUED
            returned_with = list(handled)  # its event still waits behind the busy one
            release.set()
            await runner.take(JournalNote("test.after", {}))
            return returned_with, handled, runner._takers
        finally:
            await stop_loop(runner, stop, task)

    returned_with, handled, takers = asyncio.run(go())
    assert "test.queued" not in returned_with
    assert handled[-3:] == ["test.busy", "test.queued", "test.after"] and takers == {}


def test_take_says_when_the_table_stopped_first(tmp_path):
    async def go():
        runner = await open_runner(tmp_path)
        stop, task = await _running(runner)
        release = asyncio.Event()
        original = runner.handle

        async def stuck(event):  # the daemon is stopping while an event is handled
            if isinstance(event, JournalNote) and event.kind == "test.stuck":
                await release.wait()
            await original(event)

        runner.handle = stuck
        runner.post(JournalNote("test.stuck", {}))
        waiting = asyncio.ensure_future(runner.take(JournalNote("test.never", {})))
        await asyncio.sleep(0.01)
        stop.set()
        release.set()
        await task
        after = await runner.take(JournalNote("test.after", {}))
        await runner.close()
        return await waiting, after

    assert asyncio.run(go()) == (Handover.STOPPED, Handover.STOPPED)
