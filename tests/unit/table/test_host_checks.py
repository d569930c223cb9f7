"""Host conditions ([host]): the clock not synchronised, the ledger on a volatile filesystem.
The decisions are pure; the probes are fed recorded answers (a real systemd answers in the
nspawn test, tests/system/)."""

import asyncio
import copy
import tomllib
from pathlib import Path

import pytest

from controller.table.events import ConditionChanged
from controller.table.host_checks import (
    CLOCK,
    LEDGER_STORAGE,
    ClockStatus,
    HostSettings,
    HostWatch,
    _adjtimex_status,
    clock_condition,
    mount_of,
    parse_mountinfo,
    parse_timedatectl,
    read_mountinfo,
    storage_condition,
)
from controller.table.tableconfig import parse_table_config

CONFIG = Path(__file__).resolve().parents[3] / "config"
SIM = tomllib.loads((CONFIG / "sim.toml").read_text())

# /proc/self/mountinfo of a Pi with Pi OS's Overlay File System (overlayroot) plus a data
# partition, a zram swap-disk and a path with a space
OVERLAYROOT = "lowerdir=/media/root-ro,upperdir=/media/root-rw/overlay,workdir=/media/root-rw/w"
MOUNTINFO = f"""\
22 1 0:21 / / rw,noatime - overlay overlayroot rw,{OVERLAYROOT}
23 22 179:2 / /media/root-ro ro,noatime - ext4 /dev/mmcblk0p2 ro
24 22 0:22 / /media/root-rw rw,noatime - tmpfs tmpfs-root rw
25 22 179:3 / /var/lib/croupier rw,noatime - ext4 /dev/mmcblk0p3 rw
26 22 0:23 / /run rw,nosuid - tmpfs tmpfs rw,size=189420k,mode=755
27 22 254:0 / /srv/zram rw - ext4 /dev/zram1 rw
28 22 179:4 / /mnt/my\\040disk rw - ext4 /dev/sda1 rw
29 22 0:24 / /srv/docker rw - overlay overlay rw,lowerdir=/l,upperdir=/mnt/my\\040disk/up,workdir=/w
"""
MOUNTS = parse_mountinfo(MOUNTINFO)


def test_mountinfo_fields_and_escapes():
    assert [m.point for m in MOUNTS][-2:] == ["/mnt/my disk", "/srv/docker"]
    assert MOUNTS[3].fstype == "ext4" and MOUNTS[3].source == "/dev/mmcblk0p3"


def test_the_mount_holding_a_path_is_the_longest_match():
    assert mount_of("/var/lib/croupier", MOUNTS).source == "/dev/mmcblk0p3"
    assert mount_of("/var/lib/croupier/x", MOUNTS).source == "/dev/mmcblk0p3"
    assert mount_of("/var/lib/croupier2", MOUNTS).fstype == "overlay"
    assert mount_of("/run/croupier", MOUNTS).fstype == "tmpfs"


@pytest.mark.parametrize(
    ("directory", "why"),
    [
        ("/var/lib/croupier", None),  # the persistent data partition
        ("/mnt/my disk/ledger", None),
        ("/srv/docker/ledger", None),  # an overlay whose changes land on a disk
        ("/run/croupier", "/run is tmpfs"),
        ("/srv/zram", "on /dev/zram1 (a RAM disk)"),
        ("/var/lib/other", "overlay whose changes: /media/root-rw is tmpfs"),
    ],
)
def test_a_ledger_that_would_not_survive_a_power_cut_is_refused(directory, why):
    detail = storage_condition(directory, MOUNTS)
    if why is None:
        assert detail is None
    else:
        assert why in detail and "allow_volatile_ledger = true" in detail


def test_an_overlay_we_cannot_trace_counts_as_volatile():
    mounts = parse_mountinfo("22 1 0:21 / / rw - overlay overlay rw,lowerdir=/a\n")
    assert "cannot be traced" in storage_condition("/var/lib/croupier", mounts)


def test_this_machines_mountinfo_parses():
    mounts = read_mountinfo()
    assert mount_of("/", mounts) is not None


def test_timedatectl_answers():
    assert parse_timedatectl("NTPSynchronized=yes\n") is True
    assert parse_timedatectl("NTPSynchronized=no\n") is False
    assert parse_timedatectl("Timezone=UTC\n") is None


def test_clock_condition_words():
    assert clock_condition(ClockStatus(True, "timedatectl: NTPSynchronized=yes")) is None
    no = clock_condition(ClockStatus(False, "timedatectl: NTPSynchronized=no"))
    assert "not synchronised (timedatectl: NTPSynchronized=no)" in no and "RTC" in no
    unknown = clock_condition(ClockStatus(None, "timedatectl: Failed to connect to bus"))
    assert "cannot tell" in unknown and "require_clock_sync = false" in unknown


def test_adjtimex_reads_this_machines_clock_state():
    status = _adjtimex_status()
    assert status.synchronised in (True, False), status.source


def test_checks_on_for_a_real_table_off_for_a_simulated_one():
    sim = copy.deepcopy(SIM)
    del sim["host"]
    assert parse_table_config(sim, "t.toml").host == HostSettings(False, True)
    real = copy.deepcopy(sim)
    real["shuffler"] = {"port": "/dev/shuffler", "firmware_allow": ["ab" * 32]}
    assert parse_table_config(real, "t.toml").host == HostSettings(True, False)
    real["host"] = {"require_clock_sync": False, "allow_volatile_ledger": True}
    assert parse_table_config(real, "t.toml").host == HostSettings(False, True)
    assert parse_table_config(copy.deepcopy(SIM), "t.toml").host == HostSettings(False, True)


class AnswersRanOut(Exception):
    pass


def watch(statuses):
    posted: list[ConditionChanged] = []
    answers = list(statuses)

    async def probe():
        if not answers:
            raise AnswersRanOut
        return answers.pop(0)

    async def run():
        host = HostWatch(
            HostSettings(True, True), Path("/"), posted.append, probe=probe, interval=0, recheck=0
        )
        await host.check()
        with pytest.raises(AnswersRanOut):
            await host.follow()

    asyncio.run(run())
    return posted


def test_the_clock_condition_follows_every_change_and_only_changes():
    no, yes = ClockStatus(False, "t: no"), ClockStatus(True, "t: yes")
    posted = watch([no, no, yes, yes, no])
    assert [(c.name, c.blocking) for c in posted] == [
        (CLOCK, True),
        (CLOCK, False),
        (CLOCK, True),
    ]
    assert "not synchronised" in posted[0].detail


def test_a_synchronised_clock_at_start_posts_nothing():
    assert watch([ClockStatus(True, "t: yes")]) == []


def test_nothing_is_asked_when_the_checks_are_off():
    async def run():
        posted = []
        host = HostWatch(HostSettings(False, True), Path("/"), posted.append, probe=None)
        await host.check()
        await host.follow()  # returns at once
        return posted

    assert asyncio.run(run()) == []


@pytest.mark.skipif(
    mount_of("/dev/shm", read_mountinfo()).fstype != "tmpfs", reason="/dev/shm is not tmpfs"
)
def test_a_ledger_in_dev_shm_is_a_blocking_condition_at_start():
    async def run():
        posted = []
        await HostWatch(HostSettings(False, False), Path("/dev/shm"), posted.append).check()
        return posted

    (condition,) = asyncio.run(run())
    assert condition.name == LEDGER_STORAGE and condition.blocking
    assert "/dev/shm is tmpfs" in condition.detail
