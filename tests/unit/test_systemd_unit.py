"""The systemd unit: `systemd-analyze verify` prints nothing, hardening rates 'OK' or better."""

import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

UNIT = Path(__file__).resolve().parents[2] / "systemd" / "croupierd.service"
analyze = shutil.which("systemd-analyze")
pytestmark = pytest.mark.skipif(analyze is None, reason="systemd-analyze is not installed")


@pytest.fixture
def unit(tmp_path):
    # verify checks that ExecStart exists: point it at this environment's croupierd
    daemon = Path(sys.executable).with_name("croupierd")
    text = UNIT.read_text().replace("/opt/croupier/venv/bin/croupierd", str(daemon))
    path = tmp_path / "croupierd.service"
    path.write_text(text)
    return path


def test_verify_prints_nothing(unit):
    run = subprocess.run([analyze, "verify", str(unit)], capture_output=True, text=True)
    assert run.returncode == 0
    assert run.stdout + run.stderr == ""


def test_security_exposure_is_ok_or_better(unit):
    run = subprocess.run(
        [analyze, "security", "--offline=true", str(unit)], capture_output=True, text=True
    )
    match = re.search(r"Overall exposure level for \S+: ([\d.]+) (\w+)", run.stdout)
    assert match, run.stdout[-500:]
    assert float(match.group(1)) <= 4.0
    assert match.group(2) in ("SAFE", "OK")


def test_unit_is_notify_with_watchdog_and_restart():
    text = UNIT.read_text()
    for line in (
        "Type=notify",
        "Restart=on-failure",
        "StateDirectory=croupier",
        "RuntimeDirectory=croupier",
        "WatchdogSec=",
    ):
        assert line in text
    assert re.search(r"SupplementaryGroups=.*gpio.*spi.*dialout", text)


def test_install_script_stages_every_file(tmp_path):
    script = UNIT.parent / "install.sh"
    run = subprocess.run(
        [str(script)],
        env={"DESTDIR": str(tmp_path), "PROFILE": "ch-bg", "PATH": "/usr/bin:/bin"},
        capture_output=True,
        text=True,
    )
    assert run.returncode == 0, run.stderr
    for path in (
        "etc/systemd/system/croupierd.service",
        "etc/udev/rules.d/99-croupier-shuffler.rules",
        "etc/tmpfiles.d/croupier.conf",
        "etc/croupier/table.toml",
    ):
        assert (tmp_path / path).is_file(), path
    assert 'profile = "ch-bg"' in (tmp_path / "etc/croupier/table.toml").read_text()
