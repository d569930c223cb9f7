"""controller/table/log_summaries.py: a LogBudget's summaries written when their windows end,
with no complaint after them, each kind's; the stop writes the windows still open."""

from __future__ import annotations

import asyncio

from controller.table.log_summaries import SummaryTimer
from firmware_bridge.log_budget import LogBudget


def test_every_windows_summary_is_written_when_it_ends_and_the_rest_at_the_stop():
    async def main():
        loop = asyncio.get_running_loop()
        budget: LogBudget[str] = LogBudget(0.05)
        written = []
        timer = SummaryTimer(
            budget, lambda s, now, closing: written.append((s.kind, s.count, closing))
        )

        def complain(kind: str, times: int) -> None:
            for _ in range(times):
                timer.flush()
                budget.allow(kind, loop.time())
                timer.arm()

        complain("refused", 3)  # the first logged (by the owner), two counted
        await asyncio.sleep(0.02)
        complain("closed", 2)  # its window ends after the first one's
        async with asyncio.timeout(5.0):  # nothing more comes: the timer writes both
            while len(written) < 2:
                await asyncio.sleep(0.01)
        ended = list(written)
        complain("refused", 4)
        timer.close()  # the window is still open: written at the stop
        return ended, written[len(ended) :]

    ended, at_stop = asyncio.run(main())
    assert ended == [("refused", 2, False), ("closed", 1, False)]
    assert at_stop == [("refused", 3, True)]
