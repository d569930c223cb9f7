"""Progress of long work (``meters verify``, ``events verify``, ``par``, ``rig soak``): a tqdm
bar on stderr with the count, the rate and the time left, only when both stdout and stderr are
a terminal and the output is not ``--json``: scripts and logs get the result alone, and output
sent to a file or a pager (``croupier par ... | less``) gets no bar drawn over it.

    with progress_bar(args, total=entries, unit="entries", what="journal") as step:
        verify_chain(journal, step)      # step(n): n more done
"""

from __future__ import annotations

import argparse
import contextlib
import sys
from collections.abc import Callable, Iterator
from typing import Any

Step = Callable[[int], None]
# tqdm's bar with the rate always as "4.99 rounds/s": its default turns a rate under one a
# second into "1.49s/ rounds"
BAR = "{l_bar}{bar}| {n_fmt}/{total_fmt} [{elapsed}<{remaining}, {rate_noinv_fmt}]"
SCALED = 10_000  # counts from here on are shown scaled (42.8k)


def wanted(args: argparse.Namespace) -> bool:
    return sys.stdout.isatty() and sys.stderr.isatty() and not getattr(args, "json", False)


@contextlib.contextmanager
def progress_bar(
    args: argparse.Namespace, *, total: int | None, unit: str, what: str
) -> Iterator[Step | None]:
    """A ``step(n)`` callable advancing the bar, or ``None`` when no bar is wanted (the work
    then skips its bookkeeping). The bar is cleared when the block ends."""
    with _bar(args, total, unit, what) as bar:
        yield None if bar is None else bar.update


@contextlib.contextmanager
def progress_to(
    args: argparse.Namespace, *, unit: str, what: str
) -> Iterator[Callable[[int, int], None] | None]:
    """For work that says ``(done, total)`` itself (``croupier par``: the engine knows how many
    board classes it counts): a callable setting the bar there, or ``None``."""
    with _bar(args, None, unit, what) as bar:
        if bar is None:
            yield None
            return

        def show(done: int, total: int) -> None:
            bar.total = total
            bar.update(done - bar.n)
            if done >= total:  # shown, however soon after the last refresh the work ended
                bar.refresh()

        yield show


@contextlib.contextmanager
def _bar(args: argparse.Namespace, total: int | None, unit: str, what: str) -> Iterator[Any]:
    """A tqdm bar on stderr (cleared at the end), or ``None`` when no bar is wanted."""
    if not wanted(args):
        yield None
        return
    from tqdm import tqdm

    with tqdm(
        total=total,
        unit=f" {unit}" if unit else "",
        desc=what,
        leave=False,
        file=sys.stderr,
        dynamic_ncols=True,
        unit_scale=total is None or total >= SCALED,  # 42.8k, but 1/15, not 1.00/15.0
        bar_format=BAR,
    ) as bar:
        yield bar
