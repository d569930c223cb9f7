"""CPU time of every ``croupier`` command's ``--help`` and of a usage error (an unknown option),
beside a bare ``python -c pass`` measured in the same run (issue 17: any command answers within
0.5 s on a Pi 3-class CPU, which bench/pi_budget.py stands in for with 15% of one core, so
about 70 ms of CPU at full speed is the budget).

CPU time (user + system of the child, the fastest of ``--runs``) rather than wall time: it is
what a 15% quota turns into wall time (``~at 15%`` = CPU / 0.15) and it moves less than wall
time on a shared machine. ``--before DIR`` measures another checkout too (e.g. ``git worktree
add --detach DIR main``), the trees taking turns for each command; the commands are this
tree's (controller.cli.main.COMMAND_GROUPS), each run by this interpreter with the tree as its
working directory (the tree's own ``controller`` comes first on ``sys.path``).

    .venv/bin/python bench/cli_help.py [--runs N] [--before DIR]
"""

from __future__ import annotations

import argparse
import resource
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from round import compile_tree  # bench/round.py

from controller.cli.main import COMMAND_GROUPS

ROOT = Path(__file__).resolve().parents[1]
CLI = "import sys; from controller.cli.main import main; sys.exit(main())"
QUOTA = 0.15  # bench/pi_budget.py's share of one core


def cpu_seconds(argv: list[str], tree: Path, runs: int) -> float:
    """The fastest of ``runs`` runs of ``python ARGV`` in ``tree``: CPU seconds of the child."""
    best = float("inf")
    for _ in range(runs):
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        subprocess.run([sys.executable, *argv], cwd=tree, capture_output=True, check=False)
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
    args = parser.parse_args()
    trees = {"now": ROOT}
    if args.before is not None:
        trees = {"before": args.before.resolve(), **trees}
    for tree in trees.values():
        compile_tree(tree)
    cases: list[tuple[str, list[str]]] = [
        ("python -c pass (baseline)", ["-c", "pass"]),
        ("croupier --help", ["-c", CLI, "--help"]),
    ]
    for _, commands in COMMAND_GROUPS:
        for name in commands:
            cases.append((f"{name} --help", ["-c", CLI, name, "--help"]))
            cases.append((f"{name} --no-such-option", ["-c", CLI, name, "--no-such-option"]))
    load = Path("/proc/loadavg").read_text().split(" ", 1)[0]
    print(
        f"CPU ms, fastest of {args.runs} runs (~at 15% = CPU / {QUOTA:g}); load average"
        f" before: {load}" + (f"; before = {args.before}" if args.before else "")
    )
    print(f"  {'command':36}" + "".join(f"{t:>10}" for t in trees) + f"{'~now at 15%':>14}")
    for label, argv in cases:
        found = {name: cpu_seconds(argv, tree, args.runs) for name, tree in trees.items()}
        cells = "".join(f"{s * 1000:10.0f}" for s in found.values())
        print(f"  {label:36}{cells}{found['now'] / QUOTA * 1000:11.0f} ms", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
