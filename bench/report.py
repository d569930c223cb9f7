"""Regulatory report benchmark: the signed gaming-day report on a 30-day ledger.

A ledger of 30 days at one round every 30 seconds (86,400 rounds, ~5% voided, a hit history)
is generated with ``bench/ledger.py``'s generator (the ledger's own pure functions and hash
chain, no commit per event). Timed, in the same run: the report of the last whole gaming day
and of a day in the middle in each signed form (JSON, CSV, PDF), beside the baseline
``meters verify`` (every invariant and the journal's replay) on the same ledger, which the
report's own replay and reconciliation resemble most.

    .venv/bin/python bench/report.py [--days 30] [--keep PATH]
"""

from __future__ import annotations

import argparse
import shutil
import sys
import tempfile
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from ledger import generate  # bench/ledger.py

from controller.books.ledger.reader import LedgerReader
from controller.books.ledger.verify import verify_ledger
from controller.books.reports.day import ReportContext
from controller.books.reports.documents import signed_day_report
from controller.books.reports.gaming_day import GamingDayRule
from controller.books.reports.signing import create_key, load_private
from controller.books.reports.theoretical import par_figures
from controller.engine.profiles import load_profile

ROUND_SECONDS = 30.0  # the generator's pace
WALL0 = 1_800_000_000.0  # the generator's first wall-clock time


def best_of(runs: int, fn) -> float:
    times = []
    for _ in range(runs):
        started = time.perf_counter()
        fn()
        times.append(time.perf_counter() - started)
    return min(times)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--days", type=int, default=30)
    parser.add_argument("--keep", type=Path, help="keep (or reuse) the ledger at this path")
    parser.add_argument("--repeat", type=int, default=1, help="best of N (default 1)")
    args = parser.parse_args()
    directory = Path(tempfile.mkdtemp(prefix="croupier-bench-report-"))
    try:
        path = args.keep or directory / "ledger.sqlite3"
        rounds = int(args.days * 86_400 / ROUND_SECONDS)
        if not path.exists():
            started = time.perf_counter()
            generate(path, rounds)
            seconds = time.perf_counter() - started
            size = path.stat().st_size / 1e6
            print(
                f"generated {args.days} days, {rounds:,} rounds in {seconds:.0f} s ({size:.0f} MB)"
            )
        create_key(directory / "key.pem")
        key = load_private(directory / "key.pem")
        profile = load_profile("uth-gr")
        context = ReportContext(
            "BENCH", profile.name, "EUR", GamingDayRule.parse("06:00", "UTC"), par_figures(profile)
        )
        first = datetime.fromtimestamp(WALL0, UTC)
        last_day = (first + timedelta(days=args.days - 1)).date() - timedelta(days=1)
        middle = (first + timedelta(days=args.days // 2)).date()
        now = datetime.fromtimestamp(WALL0 + args.days * 86_400, UTC)
        runs = [(last_day, "last whole day", form) for form in ("json", "csv", "pdf")]
        runs.append((middle, "a day in the middle", "json"))
        with LedgerReader.open(path) as reader:
            baseline = best_of(args.repeat, lambda: verify_ledger(reader))
            print(f"baseline: meters verify (whole ledger)        {baseline:7.2f} s")
            for day, label, form in runs:
                elapsed = best_of(
                    args.repeat,
                    lambda d=day, f=form: signed_day_report(
                        reader, d, context, now=now, form=f, key=key
                    ),
                )
                print(
                    f"report {day} ({label}), {form:<4}  {elapsed:7.2f} s  "
                    f"({elapsed / baseline:.0%} of meters verify)"
                )
    finally:
        shutil.rmtree(directory, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
