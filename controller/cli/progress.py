"""Progress of long work (``meters verify``, ``events verify``, ``par``, ``rig soak``): a tqdm
bar on stderr with the count, the rate and the time left, only when stderr is a terminal and
the output is not ``--json`` (scripts and logs get the result alone).

    with progress_bar(args, total=entries, unit="entries", what="journal") as step:
        verify_chain(journal, step)      # step(n): n more done
"""

from __future__ import annotations

import argparse
import contextlib
import sys
from collections.abc import Callable, Iterator

Step = Callable[[int], None]


def wanted(args: argparse.Namespace) -> bool:
    return sys.stderr.isatty() and not getattr(args, "json", False)


@contextlib.contextmanager
def progress_bar(
    args: argparse.Namespace, *, total: int | None, unit: str, what: str
) -> Iterator[Step | None]:
    """A ``step(n)`` callable advancing the bar, or ``None`` when no bar is wanted (the work
    then skips its bookkeeping). The bar is cleared when the block ends."""
    if not wanted(args):
        yield None
        return
    from tqdm import tqdm

    with tqdm(total=total, unit=f" {unit}", desc=what, leave=False, file=sys.stderr,
              dynamic_ncols=True, unit_scale=True) as bar:  # fmt: skip
        yield bar.update
