"""CPU time of every ``croupier`` command's ``--help`` and of a usage error (an unknown option),
beside a bare ``python -c pass`` measured in the same run (issue 17: any command answers within
0.5 s on a Pi 3-class CPU, which bench/pi_budget.py stands in for with 15% of one core, so
about 70 ms of CPU at full speed is the budget).

CPU time (user + system of the child, the fastest of ``--runs``) rather than wall time: it is
what a 15% quota turns into wall time (``~at 15%`` = CPU / 0.15) and it moves less than wall
time on a shared machine. ``--before DIR`` measures another checkout too (e.g. ``git worktree
add --detach DIR main``), the trees taking turns for each command; the commands are this
tree's (controller.cli.main.COMMAND_GROUPS). Each checkout is installed as a table is (a venv
from ``/usr/bin/python3``, bench/_table_venv.py), or run by this interpreter with the tree as its
working directory (``--venv development``; ``both``: side by side).

    .venv/bin/python bench/cli_help.py [--runs N] [--before DIR]
        [--venv installed|development|both] [--table-python PATH]
        [--table-python PATH]
"""

from __future__ import annotations

import argparse
import resource
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _table_venv import Table, add_options, tables  # bench/_table_venv.py

from controller.cli.main import COMMAND_GROUPS

ROOT = Path(__file__).resolve().parents[1]
QUOTA = 0.15  # bench/pi_budget.py's share of one core


def cpu_seconds(argv: list[str], table: Table, runs: int) -> float:
    """The fastest of ``runs`` runs of ``argv`` for ``table``: CPU seconds of the child."""
    best = float("inf")
    for _ in range(runs):
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        subprocess.run(argv, cwd=table.cwd, capture_output=True, check=False)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        used = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
        best = min(best, used)
    return best


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5, help="runs of each command (5)")
    parser.add_argument(
        "--before", type=Path, metavar="DIR", help="also measure this checkout, first"
    )
    add_options(parser)
    args = parser.parse_args()
    trees = {"now": ROOT}
    if args.before is not None:
        trees = {"before": args.before.resolve(), **trees}
    load = Path("/proc/loadavg").read_text().split(" ", 1)[0]  # before any install
    with tempfile.TemporaryDirectory(prefix="croupier-cli-help-") as scratch:
        return measure(args, tables(args, trees, Path(scratch)), load)


def measure(args: argparse.Namespace, trees: dict[str, Table], load: str) -> int:
    """Print each case's CPU for each table."""
    cases: list[tuple[str, list[str] | None]] = [
        ("python -c pass (baseline)", None),  # the table's interpreter
        ("croupier --help", ["--help"]),
    ]
    for _, commands in COMMAND_GROUPS:
        for name in commands:
            cases.append((f"{name} --help", [name, "--help"]))
            cases.append((f"{name} --no-such-option", [name, "--no-such-option"]))
    print(
        f"CPU ms, fastest of {args.runs} runs (~at 15% = CPU / {QUOTA:g}); load average"
        f" before: {load}" + (f"; before = {args.before}" if args.before else "")
    )
    width = max(10, *(len(t) + 2 for t in trees))
    print(f"  {'command':36}" + "".join(f"{t:>{width}}" for t in trees) + f"{'~at 15%':>14}")
    for name, table in trees.items():
        print(f"  {name}: {table.label}")
    for label, argv in cases:
        found = {}
        for name, table in trees.items():
            command = [*table.python, "-c", "pass"] if argv is None else [*table.cli, *argv]
            found[name] = cpu_seconds(command, table, args.runs)
        cells = "".join(f"{s * 1000:{width}.0f}" for s in found.values())
        last = list(found.values())[-1]  # of this tree (installed, with --venv both)
        print(f"  {label:36}{cells}{last / QUOTA * 1000:11.0f} ms", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
