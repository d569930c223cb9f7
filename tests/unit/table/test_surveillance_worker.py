"""The surveillance store on its own thread (controller/table/surveillance_worker.py): jobs run
in the order given, a read sees the writes posted before it, close() runs what is queued,
and a failed write is reported on the event loop, not swallowed."""

from __future__ import annotations

import asyncio
import logging
import threading
from pathlib import Path

import pytest

from controller.books.surveillance import RoundReusedError, SurveillanceStore
from controller.table.surveillance_worker import SurveillanceWorker


def _worker(path: Path) -> SurveillanceWorker:
    return SurveillanceWorker(lambda: SurveillanceStore(path))


def _fail(exc: BaseException) -> None:
    raise AssertionError(f"unexpected failure: {exc!r}")


def test_jobs_run_in_order_on_one_thread_and_a_read_sees_the_writes_before_it(tmp_path):
    async def main() -> tuple[list[int], set[int], list[dict]]:
        worker = _worker(tmp_path / "s.sqlite3")
        await worker.start()
        order: list[int] = []
        threads: set[int] = set()

        def job(n: int):
            def run(store: SurveillanceStore) -> None:
                threads.add(threading.get_ident())
                order.append(n)
                store.add_deck_check({"n": n}, float(n))

            return run

        for n in range(20):
            worker.post(job(n), _fail, "deck check")
        before, after = await worker.call(lambda s: s.deck_checks_around(5.0, 5.0))
        worker.close()
        return order, threads, [*before, *after]

    order, threads, around = asyncio.run(main())
    assert order == list(range(20))
    assert len(threads) == 1 and threading.get_ident() not in threads
    assert around == [{"n": 4}, {"n": 6}]


def test_close_runs_every_queued_write_before_the_store_closes(tmp_path):
    path = tmp_path / "s.sqlite3"
    gate = threading.Event()

    async def main() -> None:
        worker = _worker(path)
        await worker.start()
        worker.post(lambda s: gate.wait(5), _fail, "held")  # the queue fills behind it
        for n in range(50):
            worker.post(lambda s, n=n: s.add_deck_check({"n": n}, float(n)), _fail, "check")
        threading.Timer(0.05, gate.set).start()
        await asyncio.to_thread(worker.close)
        with pytest.raises(RuntimeError, match="closed"):
            worker.post(lambda s: None, _fail, "late")

    asyncio.run(main())
    store = SurveillanceStore(path, read_only=True)
    try:
        (count,) = store.db.execute("SELECT count(*) FROM deck_checks").fetchone()
    finally:
        store.close()
    assert count == 50


def test_a_failed_write_is_logged_and_reported_on_the_loop(tmp_path, caplog):
    caplog.set_level(logging.ERROR, "controller.table.surveillance_worker")

    async def main() -> list[tuple[BaseException, bool]]:
        loop_thread = threading.get_ident()
        worker = _worker(tmp_path / "s.sqlite3")
        await worker.start()
        reported: asyncio.Queue[tuple[BaseException, bool]] = asyncio.Queue()

        def when_failed(exc: BaseException) -> None:
            reported.put_nowait((exc, threading.get_ident() == loop_thread))

        def add(s: SurveillanceStore) -> None:
            s.add_round("R1", "uth", {"a": 1}, {"b": 2}, 1.0)

        worker.post(add, when_failed, "round R1 is not kept")
        worker.post(add, when_failed, "round R1 is not kept")  # the same ID again
        worker.post(lambda s: 1 / 0, when_failed, "a broken job")
        got = [await asyncio.wait_for(reported.get(), 5) for _ in range(2)]
        kept = await worker.call(lambda s: s.round("R1"))
        worker.close()
        assert kept["record"] == {"a": 1}  # the first record stays
        return got

    got = asyncio.run(main())
    assert [type(exc) for exc, _ in got] == [RoundReusedError, ZeroDivisionError]
    assert all(on_loop for _, on_loop in got)
    assert "round R1 is not kept: round R1 was recorded before" in caplog.text
    assert "a broken job: division by zero" in caplog.text


def test_a_read_that_fails_raises_in_the_caller(tmp_path):
    async def main() -> None:
        worker = _worker(tmp_path / "s.sqlite3")
        await worker.start()
        try:
            with pytest.raises(LookupError, match="no recorded round 'R9'"):
                await worker.call(lambda s: s.round("R9"))
        finally:
            worker.close()

    asyncio.run(main())


def test_a_store_that_cannot_open_fails_the_start(tmp_path):
    (tmp_path / "file").write_text("not a folder")

    async def main() -> None:
        worker = _worker(tmp_path / "file" / "s.sqlite3")
        try:
            with pytest.raises(OSError):
                await worker.start()
            with pytest.raises(RuntimeError, match="not open"):
                await worker.call(lambda s: s.round("last"))
        finally:
            worker.close()

    asyncio.run(main())


def test_a_result_comes_back_on_the_loop_when_asked_for(tmp_path):
    async def main() -> tuple[int, bool]:
        loop_thread = threading.get_ident()
        worker = _worker(tmp_path / "s.sqlite3")
        await worker.start()
        got: asyncio.Future[tuple[int, bool]] = asyncio.get_running_loop().create_future()

        def when_done(value: int) -> None:
            got.set_result((value, threading.get_ident() == loop_thread))

        worker.post(lambda s: 6 * 7, _fail, "a sum", when_done=when_done)
        try:
            return await asyncio.wait_for(got, 5)
        finally:
            worker.close()

    assert asyncio.run(main()) == (42, True)
