"""Every ``croupier`` command's start: its ``--help``, a usage error (an unknown option), a
mistyped command and ``--version``, then the offline commands that do real work, beside a bare
``python -c pass`` measured in the same run (issue 17: any command answers within 0.5 s on a Pi
3-class CPU, which bench/pi_budget.py stands in for with 15% of one core).

By default CPU time (user + system of the child, the fastest of ``--runs``) at full speed: it
is what a 15% quota turns into wall time (``~at 15%`` = CPU / 0.15, a floor: a short process
takes longer there) and it moves less than wall time on a shared machine. ``--quota`` runs
every command in the 15% group instead and reports its wall time (the median of ``--runs``):
the figure the target is about (needs cgroup v1, bench/_quota.py). ``--before DIR`` measures
another checkout too (e.g. ``git worktree add --detach DIR main``), the trees taking turns for
each command; the commands are this tree's (controller.cli.main.COMMAND_GROUPS). Each checkout
is installed as a table is (a venv from ``/usr/bin/python3``, bench/_table_venv.py), or run by
this interpreter with the tree as its working directory (``--venv development``; ``both``:
side by side).

    .venv/bin/python bench/cli_help.py [--runs N] [--quota] [--work-only] [--before DIR]
        [--venv installed|development|both] [--table-python PATH]
"""

from __future__ import annotations

import argparse
import resource
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _quota import CpuQuota  # bench/_quota.py
from _table_venv import Launcher, add_options, launchers  # bench/_table_venv.py

from controller.cli.main import COMMAND_GROUPS

ROOT = Path(__file__).resolve().parents[1]
QUOTA = 0.15  # bench/_quota.py's share of one core
TARGET = 0.5  # issue 17: any command within 0.5 s at that share
# Offline commands that do real work, on this tree's files: what they take beyond the CLI's
# own start is importing and running the rules, pay tables, configuration readers, the
# ledger's checks and the hardware drivers they use. The ledger's are on a scratch ledger of
# LEDGER_ROUNDS settled rounds (made once, by this tree); the hardware tests run on the mock
# pins and the sign (the picture alone, and driven on luma's dummy) with no pause (``--step
# 0``, ``--duration 0``): their start, not the technician's watching time.
LEDGER_ROUNDS = 200


def work(scratch: Path) -> list[tuple[str, list[str]]]:
    """The offline commands measured, their files under ``scratch``."""
    db = str(make_ledger(scratch / "ledger.sqlite3"))
    return [
        ("config check", ["config", "check", str(ROOT / "config" / "sim.toml")]),
        ("settle (a UTH round)", ["settle", str(ROOT / "examples" / "uth-gr-royal.json")]),
        ("eval (7 cards)", ["eval", "As", "Ks", "Qs", "Js", "Ts", "2c", "3d"]),
        ("shuffler ports", ["shuffler", "ports"]),
        ("completion bash", ["completion", "bash"]),
        (f"meters verify ({LEDGER_ROUNDS} rounds)", ["meters", "verify", "--db", db]),
        (f"events verify ({LEDGER_ROUNDS} rounds)", ["events", "verify", "--db", db]),
        ("selfcheck status (file)", ["selfcheck", "status", "--db", db]),
        ("meters (file)", ["meters", "--db", db]),
        ("meters hits (file)", ["meters", "hits", "--db", db]),
        ("events tail (file)", ["events", "tail", "--db", db]),
        ("lamps test (mock pins)", ["lamps", "test", "--pin-factory", "mock", "--step", "0"]),
        ("sign show --png (off the Pi)", sign_show(scratch)),
        (
            "sign show --png --backend dummy",
            [*sign_show(scratch), "--backend", "dummy", "--duration", "0"],
        ),
    ]


def sign_show(scratch: Path) -> list[str]:
    """The sign's picture: off the Pi (no SPI node) nothing is driven (and ``--duration`` is
    a usage error); ``--backend dummy`` drives luma's dummy device too."""
    return ["sign", "show", "1234.56", "--png", str(scratch / "sign.png")]


def make_ledger(path: Path) -> Path:
    """A ledger of LEDGER_ROUNDS settled two-seat rounds on uth-gr's progressive pool."""
    from controller.books.ledger.store import Ledger
    from controller.engine.pools.config import pool_config
    from controller.engine.profiles import load_profile

    pool = pool_config("uth", load_profile("uth-gr").progressive, seed=500_000)
    with Ledger.open(path, now=0.0) as ledger:
        ledger.configure_pool(pool, 0.0)
        for n in range(LEDGER_ROUNDS):
            stakes = {1: {"progressive": 100}, 2: {"progressive": 100}}
            ledger.open_round(f"r{n}", stakes, 1.0 + n)
            ledger.settle_round(f"r{n}", 1.5 + n, hits={"uth": {}})
    return path


def cpu_seconds(argv: list[str], launcher: Launcher, runs: int) -> float:
    """The fastest of ``runs`` runs of ``argv``: CPU seconds of the child."""
    best = float("inf")
    for _ in range(runs):
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        launcher.run(argv)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        used = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
        best = min(best, used)
    return best


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5, help="runs of each command (5)")
    parser.add_argument(
        "--quota", action="store_true", help="wall time in the 15%% group instead of CPU time"
    )
    parser.add_argument(
        "--work-only", action="store_true", help="only the offline commands that do real work"
    )
    parser.add_argument(
        "--before", type=Path, metavar="DIR", help="also measure this checkout, first"
    )
    add_options(parser)
    args = parser.parse_args()
    trees = {"now": ROOT}
    if args.before is not None:
        trees = {"before": args.before.resolve(), **trees}
    load = Path("/proc/loadavg").read_text().split(" ", 1)[0]  # before any install
    quota = CpuQuota() if args.quota else None
    if quota is not None and (why := quota.create()) is not None:
        print(f"cli_help: --quota: {why}")
        return 1
    try:
        with tempfile.TemporaryDirectory(prefix="croupier-cli-help-") as scratch:
            measure(args, launchers(args, trees, Path(scratch)), load, quota, work(Path(scratch)))
    finally:
        if quota is not None:
            quota.remove()
    return 0


def measure(
    args: argparse.Namespace,
    checkouts: dict[str, Launcher],
    load: str,
    quota: CpuQuota | None,
    offline: list[tuple[str, list[str]]],
) -> None:
    """Print each case's figure for each checkout."""
    cases: list[tuple[str, list[str] | None]] = [
        ("python -c pass (baseline)", None),  # the checkout's interpreter
        ("croupier --version", ["--version"]),
        ("croupier --help", ["--help"]),
        ("croupier statsu (a typo)", ["statsu"]),
    ]
    for _, commands in [] if args.work_only else COMMAND_GROUPS:
        for name in commands:
            cases.append((f"{name} --help", [name, "--help"]))
            cases.append((f"{name} --no-such-option", [name, "--no-such-option"]))
    cases += [(f"work: {label}", argv) for label, argv in offline]
    what = (
        f"wall ms at 15% of a core, median of {args.runs} runs"
        if quota is not None
        else f"CPU ms, fastest of {args.runs} runs (~at 15%: the last column's CPU / {QUOTA:g})"
    )
    print(what + f"; load average before: {load}")
    width = max(10, *(len(name) + 2 for name in checkouts))
    extra = "" if quota is not None else f"{'~at 15%':>14}"
    print(f"  {'command':36}" + "".join(f"{name:>{width}}" for name in checkouts) + extra)
    for name, launcher in checkouts.items():
        print(f"  {name}: {launcher.label}")
    for label, argv in cases:
        found = {}
        for name, launcher in checkouts.items():
            command = [*launcher.python, "-c", "pass"] if argv is None else [*launcher.cli, *argv]
            if quota is not None:
                found[name] = launcher.median_wall(command, args.runs, quota.enter)
            else:
                found[name] = cpu_seconds(command, launcher, args.runs)
        cells = "".join(f"{s * 1000:{width}.0f}" for s in found.values())
        at_quota = list(found.values())[-1] / (QUOTA if quota is None else 1)
        if quota is None:
            cells += f"{at_quota * 1000:11.0f} ms"
        over = "  over 0.5 s" if at_quota >= TARGET else ""  # this tree's figure
        print(f"  {label:36}{cells}{over}", flush=True)


if __name__ == "__main__":
    sys.exit(main())
