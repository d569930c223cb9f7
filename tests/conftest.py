import contextlib
import itertools
import os
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, settings

from controller.rig.table import REPO_CONFIG, SimTable, merged

settings.register_profile(
    "ci", max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
settings.register_profile("dev", max_examples=100, deadline=None)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))

# What the tests change of a shipped table configuration: an unpaced emulator with a fixed
# seed (tests run fast and deal the same cards), and a settled display long enough that a
# test reads the settled round before the table opens again.
TEST_OVERRIDES: dict[str, Any] = {
    "shuffler": {"emulator": {"baud": None, "seed": 7}},
    "timing": {"settled_display": 60.0},
}
TEST_WAIT = 20.0  # seconds a test's wait allows by default (a loaded CI machine)


@pytest.fixture
def make_sim_table(tmp_path: Path) -> Iterator[Callable[..., SimTable]]:
    """Simulated tables (the rig's SimTable: a real croupierd, the emulator on a pty, the
    rig's pins), closed after the test. ``make_sim_table(overrides, config=..., start=True,
    wait_open=True, **SimTable keywords)``: ``overrides`` are merged over TEST_OVERRIDES
    (``None`` removes a key); ``start``: start the daemon; ``wait_open``: and wait until the
    table is open. Each table's log is ``croupierd-N.log`` in the test's tmp_path, so it is
    still there after the table is closed."""
    tables = contextlib.ExitStack()  # closes every table, even when one close fails
    numbers = itertools.count()

    def make(
        overrides: dict[str, Any] | None = None,
        *,
        config: str | Path = REPO_CONFIG,
        start: bool = True,
        wait_open: bool = True,
        **options: Any,
    ) -> SimTable:
        options.setdefault("log_path", tmp_path / f"croupierd-{next(numbers)}.log")
        table = SimTable(
            config, overrides=merged(TEST_OVERRIDES, overrides or {}, keep_none=True), **options
        )
        table.wait_timeout = TEST_WAIT
        tables.callback(table.close)
        if start:
            table.start()
            if wait_open:
                table.wait_for_state("open")
        return table

    with tables:
        yield make


@pytest.fixture
def sim_table(make_sim_table: Callable[..., SimTable]) -> SimTable:
    """A started simulated table on config/sim.toml, open."""
    return make_sim_table()
