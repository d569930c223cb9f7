"""Conditions of the machine under the table that keep it CLOSED: ``[host]`` in table.toml.

``clock``: the system clock is not synchronised (no NTP yet, no RTC battery). A Pi without a
network time source boots at the last saved time; every journal entry, ledger row and meter
report would carry a wrong timestamp, so the table stays closed until the clock is
synchronised. The daemon asks every :data:`CLOCK_PROBE_SECONDS` and opens by itself once it is;
then it asks every :data:`CLOCK_RECHECK_SECONDS` (a clock can lose its synchronisation).

``ledger-storage``: the ledger's directory is on a volatile filesystem (tmpfs, ramfs, a zram
device, or an overlay root such as Pi OS's "Overlay File System", whose changes live in RAM):
every meter would be lost at the next power cut. Checked once at start-up.

Both are on by default on a real table and off on a simulated one (``[shuffler] emulate``)::

    [host]
    require_clock_sync = true       # false: open with an unsynchronised clock
    allow_volatile_ledger = false   # true: a ledger in RAM is intended (a demo table)

The decisions (:func:`clock_condition`, :func:`storage_condition`, :func:`mount_of`) are pure;
the probes (:func:`probe_clock`, :func:`read_mountinfo`) are thin. The clock probe asks
``timedatectl show`` (systemd-timedated reads the kernel's NTP state): the unit's
``ProtectClock=yes`` forbids ``adjtimex()`` even read-only (the call fails with EPERM).
``adjtimex`` is the fallback only where systemd is not installed.
"""

from __future__ import annotations

import asyncio
import ctypes
import os
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path

from controller.table.events import Condition, ConditionChanged
from controller.table.host_settings import HostSettings

CLOCK = Condition.CLOCK
LEDGER_STORAGE = Condition.LEDGER_STORAGE
CLOCK_PROBE_SECONDS = 30.0
CLOCK_RECHECK_SECONDS = 300.0
TIMEDATECTL_TIMEOUT = 10.0
VOLATILE_TYPES = ("tmpfs", "ramfs")
VOLATILE_DEVICES = ("/dev/zram", "/dev/ram")
TIME_ERROR = 5  # adjtimex(): the clock is not synchronised


# --- the clock ---------------------------------------------------------------------------


@dataclass(frozen=True)
class ClockStatus:
    synchronised: bool | None  # None: could not be told
    source: str  # what answered, for the technician: "timedatectl: NTPSynchronized=no"


def clock_condition(status: ClockStatus) -> str | None:
    """The blocking detail, or None when the clock may be trusted."""
    if status.synchronised:
        return None
    if status.synchronised is None:
        return (
            f"cannot tell whether the clock is synchronised ({status.source}); fix it, or set"
            " [host] require_clock_sync = false"
        )
    return (
        f"the system clock is not synchronised ({status.source}): check NTP"
        " (timedatectl timesync-status) or the RTC battery"
    )


def parse_timedatectl(output: str) -> bool | None:
    """``NTPSynchronized=yes|no`` from ``timedatectl show`` output."""
    for line in output.splitlines():
        key, _, value = line.partition("=")
        if key == "NTPSynchronized":
            return {"yes": True, "no": False}.get(value.strip())
    return None


async def probe_clock() -> ClockStatus:
    try:
        proc = await asyncio.create_subprocess_exec(
            "timedatectl",
            "show",
            "--property=NTPSynchronized",
            stdin=asyncio.subprocess.DEVNULL,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
        )
    except FileNotFoundError:
        return _adjtimex_status()
    try:
        async with asyncio.timeout(TIMEDATECTL_TIMEOUT):
            out, err = await proc.communicate()
    except TimeoutError:
        proc.kill()
        await proc.wait()
        return ClockStatus(None, f"timedatectl gave no answer in {TIMEDATECTL_TIMEOUT:g} s")
    text = out.decode("utf-8", "replace")
    synced = parse_timedatectl(text) if proc.returncode == 0 else None
    if synced is None:
        why = (err or out).decode("utf-8", "replace").strip().splitlines()
        return ClockStatus(None, f"timedatectl: {why[-1] if why else 'no NTPSynchronized'}")
    return ClockStatus(synced, f"timedatectl: NTPSynchronized={'yes' if synced else 'no'}")


def _adjtimex_status() -> ClockStatus:
    """Without systemd: the kernel's own word (adjtimex with modes = 0 only reads)."""
    buffer = ctypes.create_string_buffer(512)  # larger than struct timex; modes (first) = 0
    libc = ctypes.CDLL(None, use_errno=True)
    state = libc.adjtimex(buffer)
    if state < 0:
        return ClockStatus(None, f"adjtimex: {os.strerror(ctypes.get_errno())}")
    return ClockStatus(state != TIME_ERROR, f"adjtimex: state {state}")


# --- the ledger's filesystem -------------------------------------------------------------


@dataclass(frozen=True)
class Mount:
    point: str
    fstype: str
    source: str
    options: str  # the filesystem's own (super) options


def _unescape(field: str) -> str:
    return field.encode().decode("unicode_escape")  # mountinfo writes " " as \040


def parse_mountinfo(text: str) -> list[Mount]:
    mounts = []
    for line in text.splitlines():
        left, sep, right = line.partition(" - ")
        fields, tail = left.split(), right.split()
        if not sep or len(fields) < 5 or len(tail) < 2:
            continue
        options = tail[2] if len(tail) > 2 else ""
        mounts.append(Mount(_unescape(fields[4]), tail[0], _unescape(tail[1]), options))
    return mounts


def mount_of(path: str, mounts: list[Mount]) -> Mount | None:
    """The mount holding ``path`` (absolute, resolved): the last of the longest matches, as
    the kernel stacks them."""
    best: Mount | None = None
    for mount in mounts:
        point = mount.point.rstrip("/") or "/"
        inside = path == point or path.startswith(point.rstrip("/") + "/")
        if inside and (best is None or len(point) >= len(best.point.rstrip("/") or "/")):
            best = mount
    return best


def volatile_reason(mount: Mount, mounts: list[Mount]) -> str | None:
    """Why data on ``mount`` would not survive a power cut, or None."""
    if mount.fstype in VOLATILE_TYPES:
        return f"{mount.point} is {mount.fstype} (kept in RAM)"
    if mount.source.startswith(VOLATILE_DEVICES):
        return f"{mount.point} is on {mount.source} (a RAM disk)"
    if mount.fstype == "overlay":
        upper = next(
            (_unescape(o[9:]) for o in mount.options.split(",") if o.startswith("upperdir=")),
            None,
        )
        below = mount_of(upper, mounts) if upper else None
        if below is not None and below.fstype != "overlay":
            inner = volatile_reason(below, mounts)
            return None if inner is None else f"{mount.point} is an overlay whose changes: {inner}"
        return (
            f"{mount.point} is an overlay whose changes cannot be traced to a persistent"
            " filesystem (Pi OS's Overlay File System keeps them in RAM)"
        )
    return None


def storage_condition(ledger_dir: str, mounts: list[Mount]) -> str | None:
    """The blocking detail for a ledger in ``ledger_dir``, or None."""
    mount = mount_of(ledger_dir, mounts)
    reason = None if mount is None else volatile_reason(mount, mounts)
    if reason is None:
        return None
    return (
        f"the ledger in {ledger_dir} would be lost at power-off: {reason}; put the state"
        " directory on a persistent partition (docs/install.md), or set [host]"
        " allow_volatile_ledger = true if this is intended"
    )


def read_mountinfo() -> list[Mount]:
    return parse_mountinfo(Path("/proc/self/mountinfo").read_text())


# --- wiring ------------------------------------------------------------------------------


class HostWatch:
    """Posts the host conditions: :meth:`check` once before the table may open (the ledger's
    storage and the clock), then :meth:`follow` re-asks the clock and posts every change."""

    def __init__(
        self,
        settings: HostSettings,
        ledger_dir: Path,
        post: Callable[[ConditionChanged], None],
        *,
        probe: Callable[[], Awaitable[ClockStatus]] = probe_clock,
        interval: float = CLOCK_PROBE_SECONDS,
        recheck: float = CLOCK_RECHECK_SECONDS,
    ) -> None:
        self.settings = settings
        self.ledger_dir = ledger_dir
        self._post = post
        self._probe = probe
        self._interval = interval
        self._recheck = recheck
        self._clock: str | None = None  # the clock condition last posted

    async def check(self) -> None:
        if not self.settings.allow_volatile_ledger:
            try:
                detail = storage_condition(os.path.realpath(self.ledger_dir), read_mountinfo())
            except OSError as exc:
                detail = (
                    f"cannot tell the ledger's filesystem ({exc}); set [host]"
                    " allow_volatile_ledger = true to open without knowing"
                )
            if detail is not None:
                self._post(ConditionChanged(LEDGER_STORAGE, True, detail))
        await self._check_clock()

    async def follow(self) -> None:
        while self.settings.require_clock_sync:
            await asyncio.sleep(self._interval if self._clock else self._recheck)
            await self._check_clock()

    async def _check_clock(self) -> None:
        if not self.settings.require_clock_sync:
            return
        detail = clock_condition(await self._probe())
        if detail != self._clock:
            self._post(ConditionChanged(CLOCK, detail is not None, detail or ""))
            self._clock = detail
