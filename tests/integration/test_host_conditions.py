"""The real daemon keeps the table closed on an unsynchronised clock and a ledger in RAM
([host], controller/table/host_checks.py), and says why in its status and its journal."""

import shutil
import uuid
from pathlib import Path

import pytest

from controller.table.host_checks import mount_of, read_mountinfo

SHM = Path("/dev/shm")
on_tmpfs = SHM.is_dir() and mount_of(str(SHM), read_mountinfo()).fstype == "tmpfs"


@pytest.fixture
def fake_timedatectl(tmp_path, monkeypatch):
    """A timedatectl on PATH that answers like systemd-timedated on a Pi without NTP."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    script = bin_dir / "timedatectl"
    script.write_text("#!/bin/sh\necho NTPSynchronized=no\n")
    script.chmod(0o755)
    monkeypatch.setenv("PATH", f"{bin_dir}:/usr/bin:/bin")


@pytest.mark.integration
@pytest.mark.skipif(not on_tmpfs, reason="/dev/shm is not a tmpfs here")
def test_unsynchronised_clock_and_ledger_in_ram_keep_the_table_closed(
    make_sim_table, fake_timedatectl
):
    ledger_dir = SHM / f"croupier-test-{uuid.uuid4().hex}"
    overrides = {
        "host": {"require_clock_sync": True, "allow_volatile_ledger": False},
        "ledger": {"path": str(ledger_dir / "ledger.sqlite3")},
    }
    try:
        table = make_sim_table(overrides, wait_open=False)
        status = table.wait_until(
            lambda: {"clock", "ledger-storage"} <= set((s := table.status())["conditions"]) and s,
            "the host conditions",
        )
        assert status["state"] == "closed"
        assert "NTPSynchronized=no" in status["conditions"]["clock"]
        assert "is tmpfs" in status["conditions"]["ledger-storage"]
        names = {e["name"] for e in table.journal("condition") if e["blocking"]}
        assert {"clock", "ledger-storage"} <= names
    finally:
        shutil.rmtree(ledger_dir, ignore_errors=True)
