"""A TableRunner of a UTH table opened on a temporary state directory, with no shuffler behind
it (the commands it would send are kept), for the runner's unit tests."""

import asyncio
import tomllib

from controller.table.runner import TableRunner
from controller.table.tableconfig import parse_table_config

CONFIG = tomllib.loads("""
[table]
id = "T9"
profile = "uth-gr"
[shuffler]
emulate = true
[pools.main]
seed = 500000
""")


class NoShuffler:
    def __init__(self):
        self.submitted = []

    def submit(self, effect, round_id=None):
        self.submitted.append(effect)


async def open_runner(state_dir):
    """The runner with its books open (the table still closed for STARTUP)."""
    runner = TableRunner(parse_table_config(CONFIG, "t.toml"), state_dir=state_dir)
    await runner.open()
    runner.shuffler = NoShuffler()
    return runner


async def start_loop(runner):
    """The runner's event loop in a task (``run`` opens the table: STARTUP cleared); returns
    the stop event and the task for :func:`stop_loop`."""
    stop = asyncio.Event()
    return stop, asyncio.ensure_future(runner.run(stop))


async def stop_loop(runner, stop, task):
    """Stop the loop :func:`start_loop` started and close the runner."""
    stop.set()
    await task
    await runner.close()
