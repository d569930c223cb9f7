"""A cgroup v1 CPU group at 15% of one core (``cpu.cfs_quota_us = 1500`` over
``cpu.cfs_period_us = 10000``): the stand-in for a Pi 3-class CPU that bench/pi_budget.py and
bench/cli_help.py run the table's processes in. Needs write access to ``/sys/fs/cgroup/cpu``
(cgroup v1, root); :meth:`CpuQuota.create` says why not where there is none."""

from __future__ import annotations

import contextlib
import os
from pathlib import Path

CGROUP_ROOT = Path("/sys/fs/cgroup/cpu")
PERIOD_US, QUOTA_US = 10_000, 1_500  # 15% of one core


class CpuQuota:
    """A cgroup v1 CPU group at 15% of a core; ``enter`` puts the calling (child) process in it
    (children inherit it)."""

    def __init__(self) -> None:
        self.path = CGROUP_ROOT / f"croupier-bench-quota-{os.getpid()}"

    def create(self) -> str | None:
        """None when the group works, else why not."""
        if not (CGROUP_ROOT / "cpu.cfs_quota_us").exists():
            return f"no cgroup v1 CPU controller at {CGROUP_ROOT}"
        try:
            self.path.mkdir()
            (self.path / "cpu.cfs_period_us").write_text(str(PERIOD_US))
            (self.path / "cpu.cfs_quota_us").write_text(str(QUOTA_US))
        except OSError as exc:
            return f"cannot make a CPU cgroup under {CGROUP_ROOT}: {exc.strerror or exc}"
        return None

    def enter(self) -> None:  # a preexec_fn: runs in the child before exec
        (self.path / "tasks").write_text(str(os.getpid()))

    def stats(self) -> str:
        """What the kernel says it did (proof that the quota bit)."""
        with contextlib.suppress(OSError):
            fields = dict(
                line.split() for line in (self.path / "cpu.stat").read_text().splitlines()
            )
            return (
                f"throttled in {fields.get('nr_throttled')} of {fields.get('nr_periods')} periods"
            )
        return "no cpu.stat"

    def remove(self) -> None:
        with contextlib.suppress(OSError):
            self.path.rmdir()
