"""croupier-web's unit: verifies clean, rates 'OK' or better, runs as its own unprivileged
user with the ledger read-only and nothing of the hardware."""

import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

UNIT = Path(__file__).resolve().parents[2] / "systemd" / "croupier-web.service"
analyze = shutil.which("systemd-analyze")


@pytest.fixture
def unit(tmp_path):
    if analyze is None:
        pytest.skip("systemd-analyze is not installed")
    web = Path(sys.executable).with_name("croupier-web")
    path = tmp_path / "croupier-web.service"
    path.write_text(UNIT.read_text().replace("/opt/croupier/venv/bin/croupier-web", str(web)))
    return path


def test_verify_prints_nothing(unit):
    run = subprocess.run([analyze, "verify", str(unit)], capture_output=True, text=True)
    assert (run.returncode, run.stdout + run.stderr) == (0, "")


def test_security_exposure_is_ok_or_better(unit):
    run = subprocess.run(
        [analyze, "security", "--offline=true", str(unit)], capture_output=True, text=True
    )
    match = re.search(r"Overall exposure level for \S+: ([\d.]+) (\w+)", run.stdout)
    assert match and float(match.group(1)) <= 4.0 and match.group(2) in ("SAFE", "OK")


def test_its_own_user_reads_the_ledger_and_touches_no_device():
    keys = [
        line.split("=", 1)
        for line in UNIT.read_text().splitlines()
        if "=" in line and not line.startswith("#")
    ]
    settings = {k: v for k, v in keys}
    assert settings["User"] == "croupier-web" and settings["SupplementaryGroups"] == "croupier"
    assert settings["ReadOnlyPaths"] == "/var/lib/croupier"
    assert settings["PrivateDevices"] == "yes" and "DeviceAllow" not in settings
    assert settings["CapabilityBoundingSet"] == ""


def test_its_file_limit_holds_the_highest_connection_cap(tmp_path):
    """max_connections goes up to 1000 (controller/web/config.py); with an accept burst (the
    listen backlog, 128) and 64 refusals lingering, systemd's default of 1024 descriptors is
    too few: the unit raises it."""
    from controller.validation import ConfigError
    from controller.web.config import load_web_config

    path = tmp_path / "web.toml"
    path.write_text('[web]\nmax_connections = 1001\n[[tables]]\nname = "T1"\nsocket = "s"\n')
    with pytest.raises(ConfigError) as err:
        load_web_config(path)
    assert err.value.problems == [("web.max_connections", "must be 8..1000, got 1001")]
    (limit,) = re.findall(r"^LimitNOFILE=(\d+)$", UNIT.read_text(), re.M)
    assert int(limit) >= 1000 + 128 + 64 + 100
