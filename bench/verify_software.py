"""Software verification benchmark: ``croupier verify-software`` on the installed software,
here and at the Pi budget.

Timed in the same run: the keyed digests of every component (HMAC-SHA-1 and HMAC-SHA-256)
beside the baseline, the power-up self-check's plain SHA-256 of the same files against the
manifest (``check_software``). The Pi budget: the same measurement in a child process held to
15% of one core by a cgroup v1 CPU quota (NOTES.md: a stand-in for a Pi 3-class CPU), when
this machine lets us make one (root, ``/sys/fs/cgroup/cpu``); the regulator's limit is 20
minutes on the table's hardware.

    .venv/bin/python bench/verify_software.py [--runs 5] [--no-pi-budget]
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from controller.books.ledger.selfcheck import check_software, make_manifest, software_files
from controller.books.software_verification import verify_software

CGROUP = Path("/sys/fs/cgroup/cpu")
SEED = "00112233445566778899aabbccddeeff01234567"


def best_of(runs: int, fn) -> float:
    times = []
    for _ in range(runs):
        started = time.perf_counter()
        fn()
        times.append(time.perf_counter() - started)
    return min(times)


def measure(runs: int) -> None:
    files = software_files()
    size = sum(p.stat().st_size for p in files.values())
    with tempfile.TemporaryDirectory() as tmp:
        manifest = Path(tmp) / "manifest.json"
        make_manifest(manifest, "bench")
        baseline = best_of(runs, lambda: check_software(manifest))
    print(f"{len(files)} components, {size / 1e6:.2f} MB")
    print(f"baseline: self-check SHA-256 against the manifest  {baseline * 1000:8.1f} ms")
    for algorithm in ("hmac-sha1", "hmac-sha256"):
        elapsed = best_of(runs, lambda a=algorithm: verify_software(SEED, a))
        print(
            f"verify-software {algorithm:<12}                  {elapsed * 1000:8.1f} ms "
            f"({elapsed / baseline:.2f}x the baseline)"
        )


def at_pi_budget(runs: int) -> None:
    group = CGROUP / f"croupier-bench-{os.getpid()}"
    try:
        group.mkdir()
        (group / "cpu.cfs_period_us").write_text("10000")
        (group / "cpu.cfs_quota_us").write_text("1500")
    except OSError as exc:
        print(f"Pi budget: not measured (no cgroup v1 CPU controller we may use: {exc})")
        return
    try:
        child = subprocess.Popen(
            [sys.executable, __file__, "--runs", str(runs), "--no-pi-budget", "--held"],
            stdin=subprocess.PIPE,
        )
        (group / "tasks").write_text(str(child.pid))
        child.communicate(b"go\n")  # starts measuring only once it is in the group
    finally:
        group.rmdir()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--no-pi-budget", action="store_true")
    parser.add_argument("--held", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.held:
        sys.stdin.readline()
        print("-- at the Pi budget (15% of one core):")
    measure(args.runs)
    if not args.no_pi_budget:
        at_pi_budget(max(1, args.runs // 2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
