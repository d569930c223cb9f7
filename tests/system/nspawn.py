"""A Debian bookworm container booted with a real systemd, for the unit tests of tests/system/.

The root is Debian's own packages (``debootstrap --variant=minbase``, about 4 minutes and
340 MB the first time), cached outside the repository in :data:`ROOT`
(``$CROUPIER_NSPAWN_ROOT``, default ``/var/cache/croupier-nspawn/bookworm``) and rebuilt when
its recipe changes. Each test boots it with ``--volatile=overlay`` (the root read-only under a
RAM overlay: a test never changes the cache) and this source tree and the test venv's
site-packages bound read-only at ``/opt/croupier/src`` and ``/opt/croupier/deps``; a venv at
``/opt/croupier/venv`` sees both, so the unit's ``ExecStart=/opt/croupier/venv/bin/croupierd``
runs unchanged. No package is downloaded at test time once the root is cached.

Needs root, ``systemd-nspawn`` (Debian's ``systemd-container``), ``debootstrap`` and
``nsenter``, and a Python 3.11 venv (the container's Python runs its packages). Where one is
missing the tests are skipped with the reason; ``CROUPIER_REQUIRE_NSPAWN=1`` (set by
``.ci/run``) turns the skip into a failure. ``systemd-nspawn --register=no`` because the host
need not run systemd; the container's systemd is reached with ``nsenter``.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import shutil
import signal
import subprocess
import sys
import sysconfig
import time
import uuid
from pathlib import Path

import pytest

ROOT = Path(os.environ.get("CROUPIER_NSPAWN_ROOT", "/var/cache/croupier-nspawn/bookworm"))
PACKAGES = "systemd,systemd-sysv,dbus,python3,python3-venv,libstdc++6"
MIRROR = "http://deb.debian.org/debian"
RECIPE = f"debootstrap --variant=minbase --include={PACKAGES} bookworm {MIRROR}\n"
STAMP = ".croupier-root"
BUILD_TIMEOUT = 1800.0
BOOT_TIMEOUT = 120.0
SRC, DEPS, VENV = "/opt/croupier/src", "/opt/croupier/deps", "/opt/croupier/venv"


def unavailable() -> str | None:
    """Why no container can run here, or None."""
    if sys.platform != "linux" or os.geteuid() != 0:
        return "needs root on Linux (systemd-nspawn)"
    missing = [c for c in ("systemd-nspawn", "nsenter") if shutil.which(c) is None]
    if not (ROOT / STAMP).exists() and shutil.which("debootstrap") is None:
        missing.append("debootstrap")
    if missing:
        return f"{', '.join(missing)} not installed (apt-get install systemd-container debootstrap)"
    if sys.version_info[:2] != (3, 11):
        return "the test venv must be Python 3.11, the container's (Debian bookworm)"
    return None


def skip_or_fail(reason: str) -> None:
    if os.environ.get("CROUPIER_REQUIRE_NSPAWN") == "1":
        pytest.fail(f"{reason} (CROUPIER_REQUIRE_NSPAWN=1)")
    pytest.skip(reason)


def ensure_root() -> Path:
    """The cached root, built when missing or made by another recipe (one builder at a time)."""
    ROOT.parent.mkdir(parents=True, exist_ok=True)
    with (ROOT.parent / ".lock").open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        with contextlib.suppress(OSError):
            if (ROOT / STAMP).read_text() == RECIPE:
                return ROOT
        building = ROOT.with_name(f"{ROOT.name}.building")
        shutil.rmtree(building, ignore_errors=True)
        command = ["debootstrap", "--variant=minbase", f"--include={PACKAGES}", "bookworm"]
        run = subprocess.run(
            [*command, str(building), MIRROR],
            capture_output=True,
            text=True,
            timeout=BUILD_TIMEOUT,
        )
        if run.returncode != 0:
            shutil.rmtree(building, ignore_errors=True)
            tail = (run.stderr or run.stdout).strip().splitlines()[-3:]
            skip_or_fail(f"debootstrap failed (network?): {' / '.join(tail)}")
        (building / STAMP).write_text(RECIPE)
        shutil.rmtree(ROOT, ignore_errors=True)
        building.rename(ROOT)
    return ROOT


class Container:
    """A booted container: ``run()`` a command in it, read and write its files, ``stop()``."""

    def __init__(self, root: Path, repo: Path, binds: dict[Path, str]) -> None:
        self.name = f"croupier-test-{uuid.uuid4().hex[:8]}"
        self.console = open(os.devnull, "wb")  # noqa: SIM115 (closed in stop)
        deps = sysconfig.get_paths()["purelib"]
        command = [
            "systemd-nspawn",
            "--register=no",
            "--keep-unit",
            "--quiet",
            f"--machine={self.name}",
            "--volatile=overlay",
            f"--directory={root}",
            f"--bind-ro={repo}:{SRC}",
            f"--bind-ro={deps}:{DEPS}",
            *(f"--bind={host}:{inside}" for host, inside in binds.items()),
            "--boot",
            "--console=pipe",
        ]
        self.proc = subprocess.Popen(
            command, stdin=subprocess.DEVNULL, stdout=self.console, stderr=self.console
        )
        self.pid = self._wait_for_init()
        self._wait_running()

    def _wait_for_init(self) -> int:
        deadline = time.monotonic() + BOOT_TIMEOUT
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"systemd-nspawn exited with status {self.proc.returncode}")
            for stat in Path("/proc").glob("[0-9]*/stat"):
                with contextlib.suppress(OSError, ValueError, IndexError):
                    fields = stat.read_text().rsplit(")", 1)[1].split()
                    if int(fields[1]) == self.proc.pid and "systemd" in stat.parent.joinpath(
                        "cmdline"
                    ).read_bytes().decode("utf-8", "replace"):
                        return int(stat.parent.name)
            time.sleep(0.1)
        raise RuntimeError("the container's systemd did not start")

    def _wait_running(self) -> None:
        deadline = time.monotonic() + BOOT_TIMEOUT
        state = ""
        while time.monotonic() < deadline:
            state = self.run("systemctl", "is-system-running", check=False).stdout.strip()
            if state in ("running", "degraded"):
                return
            time.sleep(0.25)
        raise RuntimeError(f"the container did not finish booting (state {state!r})")

    def run(
        self, *command: str, check: bool = True, timeout: float = 60.0, input: str | None = None
    ) -> subprocess.CompletedProcess[str]:
        run = subprocess.run(
            ["nsenter", "-t", str(self.pid), "-a", *command],
            capture_output=True,
            text=True,
            timeout=timeout,
            input=input,
            check=False,
        )
        if check and run.returncode != 0:
            raise AssertionError(f"{' '.join(command)}: exit {run.returncode}\n{run.stderr}")
        return run

    def path(self, inside: str) -> Path:
        """A path of the container's filesystem, as the host sees it."""
        return Path(f"/proc/{self.pid}/root") / inside.lstrip("/")

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)  # nspawn asks the container to power off
            try:
                self.proc.wait(60)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self.console.close()
